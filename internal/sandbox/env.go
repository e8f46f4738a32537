package sandbox

import "strings"

// hiddenPrefix renames, in the launcher's environment, each variable the
// dynamic loader or the C library acts on when a program starts. The
// launcher and its second stage are odek, unconfined until the second
// stage executes the target; an odek built with cgo is dynamically linked,
// and a project server's env (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH,
// LD_DEBUG_OUTPUT, GLIBC_TUNABLES…) would act in them, outside the sandbox.
// The target gets every variable back under its own name.
const hiddenPrefix = "ODEK_SANDBOX_ENV_"

// loaderVar reports a variable the loader or the C library reads at start.
func loaderVar(name string) bool {
	for _, p := range []string{"LD_", "GLIBC_", "MALLOC_", hiddenPrefix} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == "GCONV_PATH" || name == "LOCPATH"
}

// LauncherEnv is env as the launcher must be started with it: every
// loader variable renamed (a name already carrying the prefix gets it
// again, so that the target's environment comes back exactly).
func LauncherEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); loaderVar(name) {
			kv = hiddenPrefix + kv
		}
		out = append(out, kv)
	}
	return out
}

// targetEnv undoes LauncherEnv: the environment the target was meant to
// get.
func targetEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		out = append(out, strings.TrimPrefix(kv, hiddenPrefix))
	}
	return out
}
