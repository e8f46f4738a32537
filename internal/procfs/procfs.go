// Package procfs reads what Linux's /proc says about processes, for the
// two places that kill odek's leftovers: the sandbox launcher (a child
// subreaper) and odek itself (internal/proc).
package procfs

import (
	"bytes"
	"os"
	"slices"
	"strconv"
)

// Children lists pid's children from /proc/PID/task/TID/children, one list
// per thread (an orphan adopted by a subreaper joins one of its threads'
// lists): a read for each of the process's threads, where finding them by
// every process's parent pid reads every process's stat. ok is false when
// no thread's list could be read (not Linux, or a kernel built without
// CONFIG_PROC_CHILDREN); the caller then falls back to such a scan.
func Children(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	d, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	for _, tid := range tids {
		b, err := os.ReadFile(dir + tid + "/children")
		if err != nil {
			continue // the thread exited, or the kernel has no such lists
		}
		ok = true
		for _, f := range bytes.Fields(b) {
			if child, err := strconv.Atoi(string(f)); err == nil && !slices.Contains(kids, child) {
				kids = append(kids, child)
			}
		}
	}
	return kids, ok
}
