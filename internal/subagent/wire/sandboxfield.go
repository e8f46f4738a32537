package wire

import (
	"path/filepath"
	"strings"
)

// TaskSandbox is the task file's "sandbox" (issue 19): the parent's own
// sandbox, the widest the child may run its commands with. The child
// narrows its own config's sandbox by it (a nested Landlock domain can only
// be stricter anyway); a task without it is a parent without a sandbox.
type TaskSandbox struct {
	Mode      string   `json:"mode"` // workspace-write, read-only, off
	Network   bool     `json:"network,omitempty"`
	Workspace string   `json:"workspace,omitempty"`
	Writable  []string `json:"writable_paths,omitempty"`
	Readable  []string `json:"readable_paths,omitempty"`
	Protected []string `json:"protected_paths,omitempty"`
}

// maxSandboxPaths bounds each path list of a task's sandbox.
const maxSandboxPaths = 256

func (s *TaskSandbox) validate() error {
	if s == nil {
		return nil
	}
	if err := checkEnum("sandbox.mode", s.Mode, []string{"workspace-write", "read-only", "off"}); err != nil {
		return err
	}
	if s.Mode == "" {
		return taskErr("sandbox.mode", "missing (want workspace-write, read-only or off)")
	}
	if s.Mode != "off" && s.Workspace == "" {
		return taskErr("sandbox.workspace", "missing for mode %s", s.Mode)
	}
	lists := map[string][]string{"sandbox.workspace": {s.Workspace}, "sandbox.writable_paths": s.Writable,
		"sandbox.readable_paths": s.Readable, "sandbox.protected_paths": s.Protected}
	for field, paths := range lists {
		if len(paths) > maxSandboxPaths {
			return taskErr(field, "%d paths exceed the limit of %d", len(paths), maxSandboxPaths)
		}
		for _, p := range paths {
			if p == "" && field == "sandbox.workspace" {
				continue
			}
			if err := checkText(field, p, 4096, true); err != nil {
				return err
			}
			if !filepath.IsAbs(p) || strings.ContainsRune(p, '\n') {
				return taskErr(field, "%q is not an absolute path", p)
			}
		}
	}
	return nil
}
