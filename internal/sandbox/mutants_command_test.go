package sandbox

import "testing"

// odek started with no argument at all (argv holds its name alone) is not
// a launcher, and asking must not fail; nor is a launcher argument
// anywhere but argv[1].
func TestIsLauncherShortArgv(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {}, {"odek"}, {LauncherArg}, {"odek", "run", LauncherArg}} {
		if IsLauncher(args) {
			t.Errorf("IsLauncher(%q) = true", args)
		}
	}
	if !IsLauncher([]string{"odek", LauncherArg}) {
		t.Errorf("IsLauncher of a launcher's argv = false")
	}
}
