package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/risk"
)

// These tests close survivors of mutation testing (scripts/hand-mutate.sh):
// the shell tool's re-check just before it runs, and the caps of read_file,
// write_file, patch and shell at the cap and one over.

// strengthTools is the tools over a fresh workspace, by name.
func strengthTools(t *testing.T) (map[string]Tool, string) {
	t.Helper()
	c, err := risk.New(risk.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]Tool{}
	for _, tl := range New(Options{Classifier: c, Env: []string{"PATH=" + os.Getenv("PATH")}}) {
		tools[tl.Name()] = tl
	}
	return tools, c.Root()
}

// A command whose class rose between approval and run fails with a
// ChangedError and is not run: the write through a symlink swapped to
// point outside never lands. The same class as approved, or a lower one,
// runs.
func TestShellRecheckBeforeRun(t *testing.T) {
	tools, root := strengthTools(t)
	sh := tools["shell"]
	outside := filepath.Join(t.TempDir(), "target")
	link := filepath.Join(root, "out")
	if err := os.Symlink(filepath.Join(root, "inside.txt"), link); err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"command":"echo pwned > out","description":"write"}`)
	approved, err := sh.AssessRisk(args)
	if err != nil || approved.Class != risk.LocalWrite {
		t.Fatalf("assessed %v, %v; want local_write", approved.Class, err)
	}
	ctx := risk.WithApproved(context.Background(), approved)
	// The attack: the link now points outside the working directory.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	_, err = sh.Call(ctx, args)
	var ce *ChangedError
	if !errors.As(err, &ce) || ce.Approved != risk.LocalWrite || ce.Now.Class != risk.SystemWrite || ce.Tool != "shell" {
		t.Fatalf("Call = %v, want a ChangedError from local_write to system_write", err)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran: %s exists (%v)", outside, err)
	}
	// Equal class: runs.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "inside.txt"), link); err != nil {
		t.Fatal(err)
	}
	if out, err := sh.Call(ctx, args); err != nil || !strings.HasPrefix(out, "exit code: 0") {
		t.Fatalf("the approved class: %q, %v", out, err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "inside.txt")); string(data) != "pwned\n" {
		t.Fatalf("inside.txt = %q", data)
	}
	// A lower class than approved runs too.
	low := json.RawMessage(`{"command":"echo hi","description":"print"}`)
	if out, err := sh.Call(ctx, low); err != nil || !strings.Contains(out, "hi") {
		t.Fatalf("a safe command under a local_write approval: %q, %v", out, err)
	}
}

// A blocked path is refused at the re-check even when nothing was
// approved on ctx.
func TestRecheckRefusesBlockedWithoutApproval(t *testing.T) {
	tools, _ := strengthTools(t)
	_, err := tools["write_file"].Call(context.Background(), json.RawMessage(`{"path":"/dev/sda","content":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "raw device") {
		t.Fatalf("write_file /dev/sda = %v", err)
	}
}

// read_file returns at most MaxReadBytes of content: lines that render to
// exactly the cap all come back; a line past it is left for the next call;
// one byte under the cap takes the next line too.
func TestReadFileByteCap(t *testing.T) {
	tools, root := strengthTools(t)
	const lines, width = MaxReadBytes / 128, 120 // "%6d\t" + 120 bytes + "\n" = 128
	line := strings.Repeat("x", width)
	for _, tc := range []struct {
		name   string
		first  string
		n      int
		header string
		shown  int
	}{
		{"exactly the cap", line, lines, fmt.Sprintf(": lines 1-%d (end of file)", lines), lines},
		{"one line over", line, lines + 1, fmt.Sprintf(": lines 1-%d; more lines follow, continue with offset=%d", lines, lines+1), lines},
		{"one byte under", line[1:], lines + 1, fmt.Sprintf(": lines 1-%d (end of file)", lines+1), lines + 1},
	} {
		body := tc.first + "\n" + strings.Repeat(line+"\n", tc.n-1)
		if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := call(t, tools["read_file"], `{"path":"f.txt"}`)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		head, _, _ := strings.Cut(out, "\n")
		if !strings.HasSuffix(head, tc.header) || strings.Count(out, "\tx") != tc.shown {
			t.Errorf("%s: header %q, %d lines shown; want %q, %d", tc.name, head, strings.Count(out, "\tx"), tc.header, tc.shown)
		}
	}
}

// read_file honours at most MaxReadLines lines per call.
func TestReadFileLineCap(t *testing.T) {
	tools, root := strengthTools(t)
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(strings.Repeat("l\n", MaxReadLines+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := call(t, tools["read_file"], fmt.Sprintf(`{"path":"f.txt","limit":%d}`, MaxReadLines+1))
	if err != nil || !strings.Contains(out, fmt.Sprintf(": lines 1-%d; more lines follow", MaxReadLines)) {
		head, _, _ := strings.Cut(out, "\n")
		t.Fatalf("limit %d: %q, %v", MaxReadLines+1, head, err)
	}
}

// write_file takes content of exactly MaxWriteBytes and refuses one byte
// more, writing nothing.
func TestWriteFileCap(t *testing.T) {
	t.Parallel()
	tools, root := strengthTools(t)
	for _, n := range []int{MaxWriteBytes, MaxWriteBytes + 1} {
		content, _ := json.Marshal(strings.Repeat("a", n))
		name := fmt.Sprintf("f%d", n)
		_, err := call(t, tools["write_file"], `{"path":"`+name+`","content":`+string(content)+`}`)
		var tl *TooLargeError
		_, statErr := os.Stat(filepath.Join(root, name))
		if n == MaxWriteBytes && (err != nil || statErr != nil) {
			t.Errorf("%d bytes: %v, %v", n, err, statErr)
		}
		if n > MaxWriteBytes && (!errors.As(err, &tl) || tl.Size != int64(n) || tl.Max != MaxWriteBytes || statErr == nil) {
			t.Errorf("%d bytes: %v (file: %v), want a TooLargeError and no file", n, err, statErr)
		}
	}
}

// patch refuses a file over MaxWriteBytes and an edit that would take the
// file over it; an edit to exactly the cap is made.
func TestPatchCap(t *testing.T) {
	t.Parallel()
	tools, root := strengthTools(t)
	p := filepath.Join(root, "f.txt")
	for _, tc := range []struct {
		size      int
		old, repl string
		ok        bool
	}{
		{MaxWriteBytes - 1, "X", "YY", true},
		{MaxWriteBytes, "X", "YY", false},
		{MaxWriteBytes + 1, "X", "Y", false},
		{MaxWriteBytes + 1, "Xa", "", false}, // the result would fit: the file itself is refused
	} {
		if err := os.WriteFile(p, []byte("X"+strings.Repeat("a", tc.size-1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := call(t, tools["patch"], `{"path":"f.txt","old":"`+tc.old+`","new":"`+tc.repl+`"}`)
		var tl *TooLargeError
		if tc.ok != (err == nil) || !tc.ok && !errors.As(err, &tl) {
			t.Errorf("a %d-byte file, %q → %q: %v", tc.size, tc.old, tc.repl, err)
		}
		if st, _ := os.Stat(p); !tc.ok && st.Size() != int64(tc.size) {
			t.Errorf("a refused patch changed the file to %d bytes", st.Size())
		}
	}
}

// The shell timeout: default when absent, as asked up to MaxShellTimeout,
// clamped above it, refused below 1.
func TestShellTimeoutBounds(t *testing.T) {
	sh := &shellTool{}
	max := int(MaxShellTimeout / time.Second)
	for _, tc := range []struct {
		timeout int
		want    time.Duration
	}{{0, DefaultShellTimeout}, {1, time.Second}, {max - 1, MaxShellTimeout - time.Second}, {max, MaxShellTimeout}, {max + 1, MaxShellTimeout}, {1 << 40, MaxShellTimeout}} {
		_, d, err := sh.parse(json.RawMessage(fmt.Sprintf(`{"command":"true","description":"x","timeout":%d}`, tc.timeout)))
		if err != nil || d != tc.want {
			t.Errorf("timeout %d: %v, %v; want %v", tc.timeout, d, err, tc.want)
		}
	}
	if _, _, err := sh.parse(json.RawMessage(`{"command":"true","description":"x","timeout":-1}`)); err == nil || !strings.Contains(err.Error(), "timeout -1 must be >= 1 second") {
		t.Errorf("timeout -1: %v", err)
	}
	if !strings.Contains(string((&shellTool{}).Schema()), fmt.Sprintf(`"maximum":%d`, max)) {
		t.Error("the schema does not state the maximum timeout")
	}
}

// A real command past a 1-second timeout is killed at it and reported as
// such.
func TestShellTimeoutReported(t *testing.T) {
	t.Parallel()
	tools, _ := strengthTools(t)
	start := time.Now()
	_, err := call(t, tools["shell"], `{"command":"sleep 30","description":"hang","timeout":1}`)
	var te *TimeoutError
	if !errors.As(err, &te) || te.After != time.Second {
		t.Fatalf("Call = %v, want a TimeoutError after 1s", err)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("took %v", el)
	}
}

// Tool arguments are decoded strictly: a misspelt field is refused.
func TestUnknownArgumentRefused(t *testing.T) {
	tools, _ := strengthTools(t)
	for name, args := range map[string]string{
		"read_file": `{"path":"f","limt":1}`, "write_file": `{"path":"f","content":"","mode":"0777"}`,
		"shell": `{"command":"true","description":"x","timout":1}`,
	} {
		if _, err := tools[name].AssessRisk(json.RawMessage(args)); err == nil || !strings.Contains(err.Error(), "unknown field") {
			t.Errorf("%s %s: %v", name, args, err)
		}
	}
}

// read_file refuses what is not a regular file: a FIFO in the workspace
// would otherwise read as an empty file (or block with a writer).
func TestReadFileRefusesFIFO(t *testing.T) {
	tools, root := strengthTools(t)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, tools["read_file"], `{"path":"pipe"}`)
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("read_file on a FIFO = %v, want ErrNotRegular", err)
	}
}

// The caps are the documented figures, not just whatever the constants say.
func TestCapsAreTheDocumentedFigures(t *testing.T) {
	if MaxReadBytes != 128*1024 || MaxWriteBytes != 10*1024*1024 || MaxShellTimeout != 600*time.Second || DefaultShellTimeout != 120*time.Second {
		t.Fatalf("caps: read %d, write %d, shell timeout %v (default %v)", MaxReadBytes, MaxWriteBytes, MaxShellTimeout, DefaultShellTimeout)
	}
	_, d, err := (&shellTool{}).parse(json.RawMessage(`{"command":"true","description":"x","timeout":601}`))
	if err != nil || d != 600*time.Second {
		t.Fatalf("timeout 601: %v, %v; want 10m0s", d, err)
	}
	for name, want := range map[string]string{"read_file": "At most 128 KiB", "write_file": "At most 10 MiB", "shell": "at most 600"} {
		tools, _ := strengthTools(t)
		if !strings.Contains(tools[name].Description(), want) {
			t.Errorf("%s's description does not say %q", name, want)
		}
	}
}
