package artifact

import (
	"errors"
	"os"
)

// Open reopens a verified file the way Validate reached it: below its root,
// following no symlink at any component. The file must still be the one
// Validate measured (same inode, one link, a regular file of the same
// size); otherwise the error wraps ErrChanged. Callers that read it (the
// sub-agent results inline small text artifacts) must still compare the
// bytes with v.SHA256.
func (v *Verified) Open() (*os.File, error) {
	if v.loc.root == "" {
		return nil, ErrUnverified
	}
	f, err := v.loc.open()
	if err != nil {
		return nil, errors.Join(ErrChanged, err)
	}
	st, err := stat(f)
	if err != nil || !st.mode.IsRegular() || st.id != v.loc.id || st.nlink != 1 || st.size != v.Size {
		f.Close()
		return nil, ErrChanged
	}
	return f, nil
}
