package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkSealedCopy is ExecOnlySelf's one-time cost: copying the running
// executable (this test binary; odek's is 10 MiB) into a sealed memfd.
func BenchmarkSealedCopy(b *testing.B) {
	fi, err := os.Stat("/proc/self/exe")
	if err != nil {
		b.Skip("needs /proc")
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		src, err := os.Open("/proc/self/exe")
		if err != nil {
			b.Fatal(err)
		}
		path, err := sealedCopy(src)
		src.Close()
		if err != nil {
			b.Fatal(err)
		}
		fd, _ := strconv.Atoi(strings.TrimPrefix(path, "/proc/self/fd/"))
		_ = unix.Close(fd)
	}
}

// BenchmarkStartFrom starts this test binary (doing nothing) from its file
// and from a sealed memfd copy: what executing the copy costs a child.
func BenchmarkStartFrom(b *testing.B) {
	src, err := os.Open("/proc/self/exe")
	if err != nil {
		b.Skip("needs /proc")
	}
	copyPath, err := sealedCopy(src)
	src.Close()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, path string }{{"file", "/proc/self/exe"}, {"memfd", copyPath}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(bc.path, "-test.run=^$").CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
