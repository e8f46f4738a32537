//go:build !linux

package wire

import (
	"fmt"
	"os"
	"time"
)

// NewKeyOffer makes a pipe: where there is no /proc to reopen a child's
// descriptor through, the key is written into it.
func NewKeyOffer() (*KeyOffer, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	return &KeyOffer{conn: w, child: r}, nil
}

// give writes the key into the pipe and closes it.
func (o *KeyOffer) give(pid int, key string, timeout time.Duration) error {
	if err := o.conn.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	if _, err := o.conn.WriteString(key); err != nil {
		return fmt.Errorf("%w: write the key for the child (pid %d): %v", ErrKeyFD, pid, err)
	}
	return nil
}
