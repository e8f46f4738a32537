package interop_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procState returns the one-letter state of pid from /proc ("R", "S", "Z", ...),
// or "" when no such process exists. A zombie still counts as present: it
// means nobody waited for the child. ok is false where /proc is unavailable.
func procState(pid int) (state string, ok bool) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", true
	}
	// The command name is in parentheses and may contain spaces; fields follow the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return "", true
	}
	return fields[0], true
}

// childProcesses lists this test binary's direct children, as "pid:cmdline".
func childProcesses() []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 || fields[1] != self {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%s", e.Name(), cmdline(e.Name())))
	}
	return out
}

// processesMentioning lists live processes whose command line contains s; a
// unique temp dir in a peer's arguments makes it findable without its pid.
func processesMentioning(s string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if c := cmdline(e.Name()); strings.Contains(c, s) {
			out = append(out, e.Name()+":"+c)
		}
	}
	return out
}

func cmdline(pid string) string {
	b, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
