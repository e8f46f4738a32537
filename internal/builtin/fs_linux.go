package builtin

import "golang.org/x/sys/unix"

// parentFlags open the directory a path tool reads a file from: only to
// open the file beneath it and walk up from it, which O_PATH allows
// without read permission on the directory (as the path's one open would).
const parentFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC
