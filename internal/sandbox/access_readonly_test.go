package sandbox

import "testing"

// TestReadOnlyMapHasNoWritableRoot: a read-only map names no root a write
// could be made beneath, not even the temp dir that commands may write
// (the path tools write nothing in read-only mode), whatever path is
// asked; a workspace-write map names the deepest root.
func TestReadOnlyMapHasNoWritableRoot(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	ro, ww := m.access(t, ModeReadOnly), m.access(t, ModeWorkspaceWrite)
	for _, root := range []string{m.tmp, m.ws, m.cache} {
		if got := ro.WritableRoot(root + "/f"); got != "" {
			t.Errorf("read-only: WritableRoot(%s/f) = %q, want none", root, got)
		}
		if got := ww.WritableRoot(root + "/f"); got != root {
			t.Errorf("workspace-write: WritableRoot(%s/f) = %q, want %s", root, got, root)
		}
	}
}
