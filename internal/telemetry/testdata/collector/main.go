// Command collector is the tests' OTLP collector: the OpenTelemetry
// Collector's own OTLP receiver (HTTP, protobuf and JSON) on a free loopback
// port, printing "listening <host:port>" once it serves, then every batch it
// receives as one line: "traces <OTLP JSON>" or "metrics <OTLP JSON>". It
// is its own module, so odek's go.mod carries none of the collector's
// dependencies; internal/telemetry's tests build it once.
package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "collector:", err)
		os.Exit(1)
	}
}

func run() error {
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	line := func(kind string, b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "%s %s\n", kind, b)
		return out.Flush()
	}
	traces, err := consumer.NewTraces(func(_ context.Context, td ptrace.Traces) error {
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		if err != nil {
			return err
		}
		return line("traces", b)
	})
	if err != nil {
		return err
	}
	metrics, err := consumer.NewMetrics(func(_ context.Context, md pmetric.Metrics) error {
		b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
		if err != nil {
			return err
		}
		return line("metrics", b)
	})
	if err != nil {
		return err
	}
	ctx := context.Background()
	f := otlpreceiver.NewFactory()
	var last error
	for range 10 {
		addr, err := freePort()
		if err != nil {
			return err
		}
		cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
		http := cfg.Protocols.HTTP.GetOrInsertDefault()
		http.ServerConfig.NetAddr.Endpoint = addr
		set := receivertest.NewNopSettings(f.Type())
		tr, err := f.CreateTraces(ctx, set, cfg, traces)
		if err != nil {
			return err
		}
		mr, err := f.CreateMetrics(ctx, set, cfg, metrics)
		if err != nil {
			return err
		}
		if last = tr.Start(ctx, componenttest.NewNopHost()); last != nil {
			continue // the port was taken between freePort and Start
		}
		if err := mr.Start(ctx, componenttest.NewNopHost()); err != nil {
			return err
		}
		if err := line("listening", []byte(addr)); err != nil {
			return err
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
		<-sig
		return shutdown(ctx, tr, mr)
	}
	return last
}

func shutdown(ctx context.Context, cs ...component.Component) error {
	for _, c := range cs {
		if err := c.Shutdown(ctx); err != nil {
			return err
		}
	}
	return nil
}

// freePort is a loopback address no one listened on a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
