package childkey_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/childkey"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// TestMain lets the test binary be the child of TestInit: started with
// CHILDKEY_TEST_REPORT=1, it prints what childkey's init did and exits.
func TestMain(m *testing.M) {
	if os.Getenv("CHILDKEY_TEST_REPORT") == "1" {
		fmt.Println(report())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// report says what init left: the key or the error, ODEK_API_KEY_FD, what
// descriptor 3 is, and whether the process is dumpable.
func report() string {
	fd3 := "closed" // looked at before anything here opens a file
	if link, err := os.Readlink("/proc/self/fd/3"); err == nil {
		fd3, _, _ = strings.Cut(link, ":")
	}
	key, handed, err := childkey.Key()
	env, set := os.LookupEnv(childkey.EnvFD)
	return fmt.Sprintf("handed=%v key=%q err=%v env=%q/%v fd3=%s dumpable=%d", handed, key, err, env, set, fd3, dumpable())
}

func dumpable() int {
	r, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_DUMPABLE, 0, 0)
	return int(r)
}

// TestHardened: init made this very process non-dumpable.
func TestHardened(t *testing.T) {
	if err := childkey.Hardened(); err != nil || dumpable() != 0 {
		t.Fatalf("Hardened() = %v, dumpable = %d", err, dumpable())
	}
}

// TestInit starts this test binary as a child, as a parent odek would,
// and checks what its init did: it took the key from a real handover
// (wire.KeyOffer), closed descriptor 3 and dropped ODEK_API_KEY_FD from its
// environment, and became non-dumpable; it left a descriptor 3 that is not
// the parent's alone.
func TestInit(t *testing.T) {
	pipe := func(t *testing.T) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r
	}
	tests := []struct {
		name string
		env  string // ODEK_API_KEY_FD, "-" for none
		fd3  func(t *testing.T) (*os.File, *wire.KeyOffer)
		want string
	}{
		{"handover", "3", func(t *testing.T) (*os.File, *wire.KeyOffer) {
			o, err := wire.NewKeyOffer()
			if err != nil {
				t.Fatal(err)
			}
			return o.ChildEnd(), o
		}, `handed=true key="sk-init" err=<nil> env=""/false fd3=closed dumpable=0`},
		{"another descriptor", "4", func(t *testing.T) (*os.File, *wire.KeyOffer) { return pipe(t), nil },
			`handed=true key="" err=api key handover: ODEK_API_KEY_FD="4": only descriptor 3 is supported env=""/false fd3=pipe dumpable=0`},
		{"not a socket", "3", func(t *testing.T) (*os.File, *wire.KeyOffer) { return pipe(t), nil },
			`handed=true key="" err=api key handover: descriptor 3 is not a socket env=""/false fd3=pipe dumpable=0`},
		{"no handover", "-", func(t *testing.T) (*os.File, *wire.KeyOffer) { return pipe(t), nil },
			`handed=false key="" err=<nil> env=""/false fd3=pipe dumpable=0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, offer := tc.fd3(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = []string{"CHILDKEY_TEST_REPORT=1"}
			if tc.env != "-" {
				cmd.Env = append(cmd.Env, childkey.EnvFD+"="+tc.env)
			}
			cmd.ExtraFiles = []*os.File{f}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if offer != nil {
				if err := offer.Give(context.Background(), cmd.Process.Pid, "sk-init", 10*time.Second); err != nil {
					t.Error(err)
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v\n%s", err, out.String())
			}
			if got := strings.TrimSpace(out.String()); got != tc.want {
				t.Fatalf("child reported\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
