package iostreams

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptIn: answers come from stdin when stdin and stderr are
// terminals, from the controlling terminal when only stderr is, and from
// nowhere when stderr is not a terminal or there is no controlling one.
func TestPromptIn(t *testing.T) {
	t.Parallel()
	stdin, tty := strings.NewReader("stdin"), strings.NewReader("tty")
	opens := func(r io.Reader, err error) func() (io.Reader, error) {
		return func() (io.Reader, error) { return r, err }
	}
	noCtty := opens(nil, errors.New("open /dev/tty: no such device or address"))
	cases := []struct {
		name                string
		stdinTTY, stderrTTY bool
		open                func() (io.Reader, error)
		want                io.Reader
	}{
		{"both terminals", true, true, noCtty, stdin},
		{"piped stdin at a terminal", false, true, opens(tty, nil), tty},
		{"piped stdin, no controlling terminal", false, true, noCtty, nil},
		{"piped stdin, no way to open one", false, true, nil, nil},
		{"stderr captured", true, false, opens(tty, nil), nil},
		{"stderr captured, stdin piped", false, false, opens(tty, nil), nil},
	}
	for _, c := range cases {
		ios := &IOStreams{In: stdin, StdinTTY: c.stdinTTY, StderrTTY: c.stderrTTY, OpenTTY: c.open}
		got, ok := ios.PromptIn()
		if got != c.want || ok != (c.want != nil) {
			t.Errorf("%s: PromptIn() = %v, %v", c.name, got, ok)
		}
	}
}

// TestOpenTTYOnce: the terminal is opened once and shared; a failed open
// is the same error every time.
func TestOpenTTYOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tty")
	if err := os.WriteFile(path, []byte("y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := openTTYOnce(path)
	a, err := open()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	b, err := open()
	if err != nil || a != b {
		t.Fatalf("second open: %v, %v (same file: %v)", b, err, a == b)
	}
	missing := openTTYOnce(path)
	if _, err := missing(); err == nil {
		t.Fatal("a missing terminal opened")
	}
	if _, err := missing(); err == nil {
		t.Fatal("a missing terminal opened the second time")
	}
}
