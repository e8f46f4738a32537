package wire

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// maxKeyBytes bounds the API key read from the descriptor.
const maxKeyBytes = 64 << 10

// KeyFile returns an unlinked temporary file in dir ("" = the default temp
// dir) holding key, positioned at its start, to be passed to one child as
// file descriptor 3. Nothing of it is left on disk: the name is removed
// before KeyFile returns, and the data goes when the last descriptor closes.
// The caller closes the file once the child has started.
func KeyFile(dir, key string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "odek-key-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	_ = os.Remove(f.Name())
	if _, err := io.WriteString(f, key); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	return f, nil
}

// ReadKeyFD reads the key a parent handed over. value is ODEK_API_KEY_FD,
// which must be "3"; open opens that descriptor (os.NewFile in the CLI). The
// descriptor is closed afterwards, so nothing the child starts inherits it.
// At most maxKeyBytes are read; a trailing newline is dropped.
func ReadKeyFD(value string, open func(fd uintptr) *os.File) (string, error) {
	if strings.TrimSpace(value) != "3" {
		return "", fmt.Errorf("%w: %s=%q: only descriptor 3 is supported", ErrKeyFD, EnvAPIKeyFD, untrusted.OneLine(value, 16))
	}
	f := open(KeyFD)
	if f == nil {
		return "", fmt.Errorf("%w: descriptor 3 is not open", ErrKeyFD)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyBytes+1))
	if err != nil {
		return "", fmt.Errorf("%w: read descriptor 3: %v", ErrKeyFD, err)
	}
	if len(data) > maxKeyBytes {
		return "", fmt.Errorf("%w: descriptor 3 holds more than %d bytes", ErrKeyFD, maxKeyBytes)
	}
	key := strings.TrimRight(string(data), "\r\n")
	if key == "" {
		return "", fmt.Errorf("%w: descriptor 3 holds no key", ErrKeyFD)
	}
	return key, nil
}
