package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// raceRounds bounds the swap tests: enough that code which checks a path and
// then opens it again loses the race many times over.
const raceRounds = 5000

// swapper exchanges root/d (a real directory holding f) with root/alt (a
// symlink to a directory outside the root holding a secret f) atomically, as
// fast as it can, until stopped. At every instant root/d is one or the other.
type swapper struct {
	d, alt string
	stop   chan struct{}
	done   sync.WaitGroup
	swaps  int
}

func newRaceTree(t *testing.T) (root, outsideSum string) {
	t.Helper()
	root, outside := t.TempDir(), t.TempDir()
	must(t, os.Mkdir(filepath.Join(root, "d"), 0o700))
	must(t, os.WriteFile(filepath.Join(root, "d", "f"), []byte("inside-content"), 0o600))
	must(t, os.WriteFile(filepath.Join(outside, "f"), []byte("outside-SECRET"), 0o600))
	must(t, os.Symlink(outside, filepath.Join(root, "alt")))
	sum := sha256.Sum256([]byte("outside-SECRET"))
	return root, hex.EncodeToString(sum[:])
}

func startSwapper(t *testing.T, root string) *swapper {
	t.Helper()
	s := &swapper{d: filepath.Join(root, "d"), alt: filepath.Join(root, "alt"), stop: make(chan struct{})}
	first := make(chan struct{})
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		for {
			if err := unix.Renameat2(unix.AT_FDCWD, s.d, unix.AT_FDCWD, s.alt, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				close(first)
				return
			}
			s.swaps++
			if s.swaps == 1 {
				close(first)
			}
			select {
			case <-s.stop:
				return
			default:
			}
		}
	}()
	<-first
	return s
}

// finish stops the swapper and leaves root/d a real directory again.
func (s *swapper) finish(t *testing.T) {
	t.Helper()
	close(s.stop)
	s.done.Wait()
	if fi, err := os.Lstat(s.d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		must(t, unix.Renameat2(unix.AT_FDCWD, s.d, unix.AT_FDCWD, s.alt, unix.RENAME_EXCHANGE))
	}
}

// A directory in the middle of a ref's path swapped for a symlink while odek
// validates must never let a file outside the roots validate (issue 8.2).
func TestValidateRaceDirSwappedForSymlink(t *testing.T) {
	t.Parallel()
	for _, impl := range openImpls {
		t.Run(impl.name, func(t *testing.T) {
			impl.use(t)
			root, outsideSum := newRaceTree(t)
			ref := okRef("file://" + filepath.Join(root, "d", "f"))
			sw := startSwapper(t, root)
			escapes, accepted := 0, 0
			for range raceRounds {
				v, err := Validate(ref, []string{root})
				if err != nil {
					continue
				}
				accepted++
				if v.SHA256 == outsideSum {
					escapes++
				}
			}
			sw.finish(t)
			t.Logf("%d rounds, %d swaps, %d accepted, %d escapes", raceRounds, sw.swaps, accepted, escapes)
			if escapes != 0 {
				t.Fatalf("%d of %d validations accepted the file outside the root", escapes, raceRounds)
			}
		})
	}
}

// The same swap while artifact_read serves a registered ref must never serve
// the outside file's bytes.
func TestReadToolRaceDirSwappedForSymlink(t *testing.T) {
	t.Parallel()
	for _, impl := range openImpls {
		t.Run(impl.name, func(t *testing.T) {
			impl.use(t)
			root, _ := newRaceTree(t)
			v, err := Validate(okRef("file://"+filepath.Join(root, "d", "f")), []string{root})
			must(t, err)
			s := NewStore(t.TempDir())
			must(t, s.Register(*v, "r1"))
			tool := NewReadTool(s)
			sw := startSwapper(t, root)
			escapes, served := 0, 0
			for range raceRounds {
				out, err := tool.Call(context.Background(), []byte(`{"id":"r1"}`))
				if err != nil {
					continue
				}
				served++
				if strings.Contains(out, "SECRET") {
					escapes++
				}
			}
			sw.finish(t)
			t.Logf("%d rounds, %d swaps, %d served, %d escapes", raceRounds, sw.swaps, served, escapes)
			if escapes != 0 {
				t.Fatalf("%d of %d reads served the file outside the root", escapes, raceRounds)
			}
		})
	}
}
