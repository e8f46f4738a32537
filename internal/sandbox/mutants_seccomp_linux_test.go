//go:build linux && (amd64 || arm64)

package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The filter's assembler refuses a jump classic BPF cannot encode (a
// label behind the jump, one more than 255 instructions ahead, or none at
// all) rather than writing an offset that wraps into another instruction;
// a jump it can encode lands on its label.
func TestFilterAssemblerJumps(t *testing.T) {
	t.Parallel()
	const jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	build := func(f func(a *asm)) (prog []unix.SockFilter, panicked any) {
		defer func() { panicked = recover() }()
		a := &asm{labels: map[string]int{}}
		f(a)
		return a.done(), nil
	}
	for name, f := range map[string]func(a *asm){
		"backward": func(a *asm) {
			a.ret("back", unix.SECCOMP_RET_ALLOW)
			a.jump(jeq, 1, "back", "")
		},
		"256 ahead": func(a *asm) {
			a.jump(jeq, 1, "far", "")
			for range 256 {
				a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, 0)
			}
			a.ret("far", unix.SECCOMP_RET_ALLOW)
		},
		"no such label": func(a *asm) { a.jump(jeq, 1, "", "nowhere") },
	} {
		if prog, p := build(f); p == nil {
			t.Errorf("%s: assembled %d instructions, want a refusal", name, len(prog))
		}
	}
	prog, p := build(func(a *asm) {
		a.jump(jeq, 1, "far", "near")
		a.ret("near", unix.SECCOMP_RET_KILL_PROCESS)
		for range 254 {
			a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, 0)
		}
		a.ret("far", unix.SECCOMP_RET_ALLOW)
	})
	if p != nil {
		t.Fatalf("255 ahead: %v", p)
	}
	if j := prog[0]; j.Jt != 255 || j.Jf != 0 || prog[1+int(j.Jt)].K != unix.SECCOMP_RET_ALLOW {
		t.Errorf("the jump: jt %d jf %d", j.Jt, j.Jf)
	}
}
