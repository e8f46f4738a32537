package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/risk"
)

// raceRounds is how many raced calls each case gets: 1,000 by default and
// 300 under -short, which keep make test's race-enabled run short;
// ODEK_RACE_ROUNDS=10000 is the full attack of issue 18.5.
func raceRounds(t *testing.T) int {
	if s := os.Getenv("ODEK_RACE_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("ODEK_RACE_ROUNDS=%q: want a positive number", s)
		}
		return n
	}
	if testing.Short() {
		return 300
	}
	return 1000
}

// raceTree is a workspace whose directory d is, at every instant, either a
// real directory or a symlink to a directory outside the workspace: another
// process exchanges root/d and root/alt (the symlink) as fast as it can.
type raceTree struct {
	tools         map[string]Tool
	root, outside string
	stop          chan struct{}
	done          sync.WaitGroup
	swaps         atomic.Int64
}

// Every file the outside directory starts with: "outside-SECRET" or
// "SECRET-NAME" in a tool's output is an escape.
var outsideFiles = map[string]string{"f": "outside-SECRET\n", "p": "outside-SECRET AAA\n", "SECRET-NAME": "x\n"}

func newRaceTree(t *testing.T) *raceTree {
	t.Helper()
	tools, root, _ := setup(t)
	rt := &raceTree{tools: tools, root: root, outside: t.TempDir(), stop: make(chan struct{})}
	write(t, root, "d/f", "inside-content\n")
	write(t, root, "d/p", "inside AAA\n")
	for name, content := range outsideFiles {
		write(t, rt.outside, name, content)
	}
	if err := os.Symlink(rt.outside, filepath.Join(root, "alt")); err != nil {
		t.Fatal(err)
	}
	return rt
}

// start runs the swapper until finish; it returns after the first swap.
func (rt *raceTree) start(t *testing.T) {
	d, alt := filepath.Join(rt.root, "d"), filepath.Join(rt.root, "alt")
	first := make(chan struct{})
	rt.done.Add(1)
	go func() {
		defer rt.done.Done()
		for n := 0; ; n++ {
			if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				close(first)
				return
			}
			rt.swaps.Add(1)
			if n == 0 {
				close(first)
			}
			select {
			case <-rt.stop:
				return
			default:
			}
		}
	}()
	<-first
}

// finish stops the swapper and leaves root/d the real directory again.
func (rt *raceTree) finish(t *testing.T) {
	close(rt.stop)
	rt.done.Wait()
	d, alt := filepath.Join(rt.root, "d"), filepath.Join(rt.root, "alt")
	if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE); err != nil {
			t.Fatal(err)
		}
	}
}

// outsideChanged names what a tool did to the outside directory: a file
// added, removed, rewritten or replaced (a new inode).
func (rt *raceTree) outsideChanged(t *testing.T, inodes map[string]uint64) string {
	entries, err := os.ReadDir(rt.outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(outsideFiles) {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return fmt.Sprintf("outside directory now holds %q", names)
	}
	for name, content := range outsideFiles {
		p := filepath.Join(rt.outside, name)
		data, err := os.ReadFile(p)
		if err != nil || string(data) != content {
			return fmt.Sprintf("outside %s now %q (%v)", name, data, err)
		}
		if ino := inode(t, p); ino != inodes[name] {
			return fmt.Sprintf("outside %s was replaced", name)
		}
	}
	return ""
}

func inode(t *testing.T, p string) uint64 {
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// raceCase is one path tool attacked: the arguments of each round, and
// whether a successful result shows outside data.
type raceCase struct {
	tool string
	args func(i int) string
}

var raceCases = []raceCase{
	{"read_file", func(int) string { return `{"path":"d/f"}` }},
	{"write_file", func(i int) string { return fmt.Sprintf(`{"path":"d/new-%d","content":"x"}`, i%8) }},
	{"write_file", func(int) string { return `{"path":"d/f","content":"inside-content\n"}` }},
	{"write_file", func(i int) string { return fmt.Sprintf(`{"path":"d/sub%d/new","content":"x"}`, i%4) }},
	{"patch", func(int) string { return `{"path":"d/p","old":"AAA","new":"AAA"}` }},
	{"list_dir", func(int) string { return `{"path":"d"}` }},
	{"list_dir", func(int) string { return `{"path":".","depth":2}` }},
	{"glob", func(int) string { return `{"pattern":"d/*"}` }},
	{"glob", func(int) string { return `{"pattern":"**/*"}` }},
	{"search_files", func(int) string { return `{"pattern":"SECRET","path":"d"}` }},
	{"search_files", func(int) string { return `{"pattern":"SECRET"}` }},
}

// A directory swapped for a symlink to an outside directory while the path
// tools run (issue 18.5) must never let one of them read or write outside
// the workspace: the recheck before acting closes most of the window, and
// opening through the workspace without following symlinks the rest.
func TestPathToolsRaceDirSwappedForSymlink(t *testing.T) {
	t.Parallel()
	rounds := raceRounds(t)
	for _, impl := range openImpls {
		for _, rc := range raceCases {
			t.Run(impl.name+"/"+rc.tool+"/"+rc.args(0), func(t *testing.T) {
				impl.use(t)
				rt := newRaceTree(t)
				inodes := map[string]uint64{}
				for name := range outsideFiles {
					inodes[name] = inode(t, filepath.Join(rt.outside, name))
				}
				tl := rt.tools[rc.tool]
				rt.start(t)
				ok, escapes := 0, 0
				var first string
				for i := range rounds {
					args := rc.args(i)
					a, err := tl.AssessRisk(json.RawMessage(args))
					if err != nil {
						t.Fatal(err)
					}
					if a.Class > risk.LocalWrite {
						continue // the policy would ask: only inside work is approved
					}
					out, err := tl.Call(risk.WithApproved(context.Background(), a), json.RawMessage(args))
					if err != nil {
						continue
					}
					ok++
					why := ""
					if strings.Contains(out, "outside-SECRET") || strings.Contains(out, "SECRET-NAME") {
						why = "output shows outside data: " + out
					} else if rc.tool == "write_file" || rc.tool == "patch" {
						why = rt.outsideChanged(t, inodes)
					}
					if why != "" {
						escapes++
						if first == "" {
							first = why
						}
						rt.finish(t)
						rt = rebuild(t, rt, inodes)
					}
				}
				rt.finish(t)
				t.Logf("%d rounds, %d swaps, %d succeeded, %d escapes", rounds, rt.swaps.Load(), ok, escapes)
				if escapes != 0 {
					t.Fatalf("%d of %d calls escaped the workspace; first: %s", escapes, rounds, first)
				}
			})
		}
	}
}

// rebuild restores the outside directory after an escape and restarts the
// swapper, so that every later escape is counted too.
func rebuild(t *testing.T, rt *raceTree, inodes map[string]uint64) *raceTree {
	entries, _ := os.ReadDir(rt.outside)
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(rt.outside, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range outsideFiles {
		write(t, rt.outside, name, content)
		inodes[name] = inode(t, filepath.Join(rt.outside, name))
	}
	next := &raceTree{tools: rt.tools, root: rt.root, outside: rt.outside, stop: make(chan struct{})}
	next.swaps.Store(rt.swaps.Load())
	next.start(t)
	return next
}
