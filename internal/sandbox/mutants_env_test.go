package sandbox

import (
	"slices"
	"testing"
)

// A command started with an empty environment (env -i, a sub-agent's
// cleared one): the launcher gets GOMAXPROCS=1 alone and the target gets
// nothing back, not the launcher's GOMAXPROCS.
func TestLauncherEnvOfAnEmptyEnvironment(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{nil, {}} {
		launcher := LauncherEnv(env)
		if !slices.Equal(launcher, []string{"GOMAXPROCS=1"}) {
			t.Errorf("LauncherEnv(%#v) = %q, want GOMAXPROCS=1 alone", env, launcher)
		}
		if got := targetEnv(launcher); len(got) != 0 {
			t.Errorf("the target of an empty environment gets %q", got)
		}
	}
}
