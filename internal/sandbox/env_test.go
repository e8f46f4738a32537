package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestLauncherEnv: the launcher's environment holds no variable the
// dynamic loader or the C library acts on, and the target gets exactly the
// environment it was given, a name that already carried the prefix
// included.
func TestLauncherEnv(t *testing.T) {
	env := []string{"PATH=/bin", "LD_PRELOAD=/ws/evil.so", "LD_AUDIT=/ws/a.so", "LD_LIBRARY_PATH=/ws",
		"LD_DEBUG=files", "LD_DEBUG_OUTPUT=/home/u/.bashrc", "GLIBC_TUNABLES=glibc.malloc.check=3",
		"MALLOC_CHECK_=3", "GCONV_PATH=/ws", "LOCPATH=/ws", hiddenPrefix + "LD_PRELOAD=/x.so", "OLD_LD_PRELOAD=kept", "A=",
		"GOMAXPROCS=8"}
	launcher := LauncherEnv(env)
	for _, kv := range launcher {
		name, _, _ := strings.Cut(kv, "=")
		if name != strings.TrimPrefix(name, hiddenPrefix) {
			continue
		}
		// The loader's and the C library's variables, written out here
		// rather than asked of loaderVar: a name dropped from its list
		// must fail this test.
		if strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "GLIBC_") || strings.HasPrefix(name, "MALLOC_") ||
			name == "GCONV_PATH" || name == "LOCPATH" {
			t.Errorf("the launcher gets %q", kv)
		}
	}
	for _, want := range []string{"PATH=/bin", "OLD_LD_PRELOAD=kept", "A="} {
		if !slices.Contains(launcher, want) {
			t.Errorf("the launcher lost %q: %q", want, launcher)
		}
	}
	// The launcher runs with one P, whatever the operator's GOMAXPROCS.
	if procs := slices.DeleteFunc(slices.Clone(launcher), func(kv string) bool { return !strings.HasPrefix(kv, "GOMAXPROCS=") }); !slices.Equal(procs, []string{"GOMAXPROCS=1"}) {
		t.Errorf("the launcher's GOMAXPROCS: %q, want only GOMAXPROCS=1", procs)
	}
	if got := targetEnv(launcher); !slices.Equal(got, env) {
		t.Errorf("the target gets\n%q\nwant\n%q", got, env)
	}
	// Without one of the operator's, the target gets none.
	if got := targetEnv(LauncherEnv([]string{"PATH=/bin"})); !slices.Equal(got, []string{"PATH=/bin"}) {
		t.Errorf("the target gets %q, want PATH alone", got)
	}
}
