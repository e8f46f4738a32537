package telemetry_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests' OTLP collector (testdata/collector, the Collector's own OTLP
// receiver, its own module) and the demo MCP server, built once.
var (
	collectorBin, wordcountBin string
	buildErr                   error
)

func TestMain(m *testing.M) {
	flag.Parse()
	tmp, err := os.MkdirTemp("", "odek-telemetry-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if !testing.Short() {
		buildPeers(tmp)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func buildPeers(tmp string) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	collectorBin = filepath.Join(tmp, "collector")
	cmd := exec.Command("go", "build", "-o", collectorBin, ".")
	cmd.Dir = filepath.Join(dir, "testdata", "collector")
	cmd.Env = append(os.Environ(), "GOWORK=off") // its own module, never odek's
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("building the test collector: %v\n%s", err, out)
		return
	}
	wordcountBin = filepath.Join(tmp, "wordcount")
	cmd = exec.Command("go", "build", "-o", wordcountBin, "./testdata/demo/wordcount")
	cmd.Dir = filepath.Join(dir, "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("building wordcount: %v\n%s", err, out)
	}
}

// collector is a running test collector and the spans and metric
// points it received.
type collector struct {
	addr    string
	cmd     *exec.Cmd
	mu      sync.Mutex
	spans   []span
	exports [][]metricPoint // one per metrics export received
	cond    *sync.Cond
}

// span is one received span, flattened from OTLP JSON.
type span struct {
	Resource map[string]any
	Scope    string
	TraceID  string
	SpanID   string
	Parent   string
	Name     string
	Kind     int
	Attrs    map[string]any
	Status   int
	Message  string
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the test collector")
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	c := &collector{cmd: exec.Command(collectorBin)}
	c.cond = sync.NewCond(&c.mu)
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stderr = os.Stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.cmd.Process.Signal(os.Interrupt)
		c.cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "listening ") {
		t.Fatalf("collector did not start: %q %v", sc.Text(), sc.Err())
	}
	c.addr = strings.TrimPrefix(sc.Text(), "listening ")
	go func() {
		for sc.Scan() {
			kind, body, _ := strings.Cut(sc.Text(), " ")
			switch kind {
			case "traces":
				got := flatten(t, body)
				c.mu.Lock()
				c.spans = append(c.spans, got...)
				c.cond.Broadcast()
				c.mu.Unlock()
			case "metrics":
				got := flattenMetrics(t, body)
				c.mu.Lock()
				c.exports = append(c.exports, got)
				c.cond.Broadcast()
				c.mu.Unlock()
			}
		}
	}()
	return c
}

// waitSpans waits until n spans arrived (or the deadline) and returns them.
func (c *collector) waitSpans(t *testing.T, n int) []span {
	t.Helper()
	if !c.wait(func() bool { return len(c.spans) >= n }) {
		t.Fatalf("collector got %d spans, want %d: %+v", len(c.spans), n, c.spans)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]span(nil), c.spans...)
}

// waitExports waits until n metrics exports arrived (or the deadline)
// and returns them.
func (c *collector) waitExports(t *testing.T, n int) [][]metricPoint {
	t.Helper()
	if !c.wait(func() bool { return len(c.exports) >= n }) {
		t.Fatalf("collector got %d metrics exports, want %d: %+v", len(c.exports), n, c.exports)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]metricPoint(nil), c.exports...)
}

// wait waits (20s at most) until ok, which runs under c.mu, holds.
func (c *collector) wait(ok func() bool) bool {
	timer := time.AfterFunc(20*time.Second, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(20 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for !ok() && time.Now().Before(deadline) {
		c.cond.Wait()
	}
	return ok()
}

// flatten reads OTLP JSON (the Collector's JSON marshaller) into spans.
func flatten(t *testing.T, body string) []span {
	var doc struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []kv `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Scope struct {
					Name string `json:"name"`
				} `json:"scope"`
				Spans []struct {
					TraceID, SpanID, ParentSpanID, Name string
					Kind                                int
					Attributes                          []kv
					Status                              struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					}
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Errorf("collector line: %v", err)
		return nil
	}
	var out []span
	for _, rs := range doc.ResourceSpans {
		res := attrs(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				out = append(out, span{Resource: res, Scope: ss.Scope.Name, TraceID: s.TraceID, SpanID: s.SpanID,
					Parent: s.ParentSpanID, Name: s.Name, Kind: s.Kind, Attrs: attrs(s.Attributes),
					Status: s.Status.Code, Message: s.Status.Message})
			}
		}
	}
	return out
}

type kv struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

// attrs maps OTLP JSON attributes to plain values: strings, int64 (as
// OTLP JSON's decimal strings), bools, doubles, []any.
func attrs(kvs []kv) map[string]any {
	m := map[string]any{}
	for _, a := range kvs {
		m[a.Key] = anyValue(a.Value)
	}
	return m
}

func anyValue(v map[string]any) any {
	for k, x := range v {
		switch k {
		case "intValue":
			var n int64
			fmt.Sscan(fmt.Sprint(x), &n)
			return n
		case "arrayValue":
			var out []any
			vals, _ := x.(map[string]any)["values"].([]any)
			for _, e := range vals {
				out = append(out, anyValue(e.(map[string]any)))
			}
			return out
		default:
			return x
		}
	}
	return nil
}

// byName finds the spans named name.
func byName(spans []span, name string) []span {
	var out []span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// lookup is an environment of env alone.
func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}
