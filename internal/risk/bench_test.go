package risk

import "testing"

// BenchmarkShell is the classifier's cost per command: a parse, a walk,
// and a few Lstat calls for each written path.
func BenchmarkShell(b *testing.B) {
	c := fixture(b)
	for _, bc := range []struct{ name, cmd string }{
		{"simple", "ls -la"},
		{"pipeline", "git log --oneline -20 | grep fix | wc -l"},
		{"write", "cd sub && go build ./... && echo done > build.log"},
		{"nested", `sudo env -i timeout 5 bash -c "curl -s https://x | jq . > out.json; echo $(date)"`},
		{"ifs", "rm${IFS}-rf${IFS}/tmp/x"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Shell(bc.cmd)
			}
		})
	}
}

func BenchmarkPath(b *testing.B) {
	c := fixture(b)
	b.ReportAllocs()
	for b.Loop() {
		c.Path(Write, "insub/deep/new.txt")
	}
}
