package builtin

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// nobody is the unprivileged user the sandbox's attacks are run as again
// when the tests run as root (CI containers usually do).
const nobody = 65534

// sandboxSuites are the attack tests run again as an unprivileged user.
var sandboxSuites = []string{"TestSandboxEscapes", "TestSandboxMetadata", "TestSandboxMetadataInside",
	"TestSandboxRuleSwaps", "TestSandboxCannotReachOtherProcesses", "TestSandboxDropsPrivileges", "TestNoDescendantSurvives"}

// TestSandboxAsUnprivilegedUser: the promises hold for an unprivileged
// user as for root (root owns root's files, has capabilities to drop and
// other ptrace rules): run as root, this test runs the sandbox's attack
// suites once more as uid 65534 from a copy of this test binary, and
// requires every one of them to run and pass. Run as anyone else, the
// suites above are that run already.
func TestSandboxAsUnprivilegedUser(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	if os.Getuid() != 0 {
		t.Skip("not root: the suites themselves run unprivileged")
	}
	if testing.Short() {
		t.Skip("-short: the unprivileged run takes a minute")
	}
	dir, err := os.MkdirTemp("", "odek-unpriv-") // t.TempDir's parent is not traversable for others
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "builtin.test")
	copyExecutable(t, bin)
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(work, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^("+strings.Join(sandboxSuites, "|")+")$", "-test.v", "-test.count=1")
	cmd.Dir = work
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + work, "TMPDIR=" + work, "LANG=C",
		"GORACE=atexit_sleep_ms=0", "ODEK_TEST_SKIP_CONTROL=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the suites failed as uid %d: %v\n%s", nobody, err, out)
	}
	for _, s := range sandboxSuites {
		if !regexp.MustCompile(`(?m)^--- PASS: ` + s + ` `).Match(out) {
			t.Errorf("%s did not run and pass as uid %d:\n%s", s, nobody, out)
		}
	}
	if n := strings.Count(string(out), "    --- PASS:"); n < 40 {
		t.Errorf("only %d attack rows passed as uid %d (skipped for want of a tool?):\n%s", n, nobody, out)
	}
}

func copyExecutable(t *testing.T, to string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
