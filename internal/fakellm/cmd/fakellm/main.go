// Command fakellm serves a fakellm script as an OpenAI-compatible endpoint.
//
//	fakellm -script file.json [-addr 127.0.0.1:0] [-url-file path] [-v]
//
// Once listening it writes the base URL (ending in /v1) to -url-file, through
// a temporary file and a rename so a reader never sees it half written, and
// prints it on stdout. With -v each request is logged on one line to stderr.
// SIGINT or SIGTERM stops the server, removes the URL file and exits 0.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/odek-run/odek/internal/fakellm"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	script := fs.String("script", "", "script file (JSON; see package fakellm)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	urlFile := fs.String("url-file", "", "write the base URL to this file once listening")
	verbose := fs.Bool("v", false, "log each request to stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *script == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: fakellm -script file.json [-addr 127.0.0.1:0] [-url-file path] [-v]")
		return 2
	}
	s, err := fakellm.LoadScript(*script)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	var opts []fakellm.Option
	if *verbose {
		opts = append(opts, fakellm.WithLog(stderr))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	srv, err := fakellm.Start(s, *addr, opts...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer srv.Close()
	if *urlFile != "" {
		if err := writeAtomic(*urlFile, srv.URL()+"\n"); err != nil {
			fmt.Fprintln(stderr, "fakellm:", err)
			return 1
		}
		defer os.Remove(*urlFile)
	}
	fmt.Fprintln(stdout, srv.URL())
	if *verbose {
		fmt.Fprintf(stderr, "fakellm: serving %d turns at %s\n", len(s.Turns), srv.URL())
	}
	<-ctx.Done()
	if *verbose {
		fmt.Fprintf(stderr, "fakellm: stopping after %d of %d turns\n", srv.TurnsUsed(), len(s.Turns))
	}
	return 0
}

// writeAtomic writes data to path via a temporary file in the same directory.
func writeAtomic(path, data string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".fakellm-url-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
