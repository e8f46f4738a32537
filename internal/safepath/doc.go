// Package safepath opens, creates and replaces files below a directory
// descriptor without ever following a symlink and without leaving the
// directory, so that a path checked once cannot be redirected by a symlink
// swapped in before it is used.
//
// Invariants:
//   - Every open starts from a directory descriptor and never follows a
//     symlink at any component: openat2 with
//     RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux (5.6 and later), or, where
//     openat2 is missing or filtered, a walk that opens each component with
//     O_NOFOLLOW from the descriptor of the one before. "..", "" and "."
//     components (other than a lone ".") are refused by the walk and by
//     RESOLVE_BENEATH alike.
//   - OpenRoot reaches an absolute directory the same way from "/", so a
//     canonical path (one a resolver found free of symlinks) is opened only
//     while it still is one.
//   - WriteFile replaces a file atomically within one directory descriptor:
//     the temporary file is created O_EXCL|O_NOFOLLOW beneath it and renamed
//     with renameat within it, so neither can land anywhere else.
//   - Errors wrap ErrSymlink, ErrNotDir or ErrEscapes where that is the
//     reason, and fs.ErrNotExist for a missing component; nothing is printed.
//
// It is a leaf: it imports the standard library and golang.org/x/sys only.
// Where the platform has no openat (not unix), every call fails with
// ErrUnsupported rather than falling back to following paths.
package safepath
