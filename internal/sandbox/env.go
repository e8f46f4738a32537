package sandbox

import "strings"

// hiddenPrefix renames, in the launcher's environment, each variable the
// dynamic loader or the C library acts on when a program starts. The
// launcher is odek, unconfined but for the thread that forks the target;
// an odek built with cgo is dynamically linked,
// and a project server's env (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH,
// LD_DEBUG_OUTPUT, GLIBC_TUNABLES…) would act in them, outside the sandbox.
// The target gets every variable back under its own name.
const hiddenPrefix = "ODEK_SANDBOX_ENV_"

// procsVar is the Go runtime's GOMAXPROCS, which the launcher runs
// with set to 1: it runs one goroutine that waits on its children (and,
// sandboxed, the supervisor's and the one that holds the policy), never Go code in parallel,
// and a second P costs every start its caches and threads (on a 2-core
// machine: 6% of a launcher start's instructions, 20-50 of its 400-odd
// page faults). The target gets the operator's own value back, or none.
const procsVar = "GOMAXPROCS"

// loaderVar reports a variable the loader or the C library reads at start,
// or GOMAXPROCS (the launcher's own is 1, see procsVar).
func loaderVar(name string) bool {
	for _, p := range []string{"LD_", "GLIBC_", "MALLOC_", hiddenPrefix} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == "GCONV_PATH" || name == "LOCPATH" || name == procsVar
}

// LauncherEnv is env as the launcher must be started with it: every
// loader variable renamed (a name already carrying the prefix gets it
// again, so that the target's environment comes back exactly), and
// GOMAXPROCS=1.
func LauncherEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); loaderVar(name) {
			kv = hiddenPrefix + kv
		}
		out = append(out, kv)
	}
	return append(out, procsVar+"=1")
}

// targetEnv undoes LauncherEnv: the environment the target was meant to
// get. A GOMAXPROCS under its own name is the launcher's (LauncherEnv hid
// every other), and is dropped.
func targetEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, procsVar+"=") {
			continue
		}
		out = append(out, strings.TrimPrefix(kv, hiddenPrefix))
	}
	return out
}
