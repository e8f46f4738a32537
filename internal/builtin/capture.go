package builtin

import (
	"fmt"
	"strings"
	"sync"
)

// capture keeps a command's output for the model (head and tail within
// show bytes) and, up to keep bytes, whole for the artifact.
type capture struct {
	// onWrite, when set, hears every write (the command is alive), outside
	// the lock.
	onWrite func()

	mu    sync.Mutex
	show  int
	keep  int
	all   []byte // the first keep bytes
	tail  []byte // ring of the last show/4 bytes once past all
	total int64
}

func newCapture(show, keep int) *capture { return &capture{show: show, keep: keep} }

func (c *capture) Write(p []byte) (int, error) {
	if c.onWrite != nil && len(p) > 0 {
		c.onWrite()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if room := c.keep - len(c.all); room > 0 {
		c.all = append(c.all, p[:min(room, len(p))]...)
	}
	tailCap := c.show / 4
	c.tail = append(c.tail, p[max(0, len(p)-tailCap):]...)
	if len(c.tail) > tailCap {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-tailCap:]...)
	}
	return len(p), nil
}

func (c *capture) cut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(c.show)
}

// text is the output as the model sees it.
func (c *capture) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total <= int64(c.show) {
		return strings.ToValidUTF8(string(c.all), "\uFFFD")
	}
	head := c.show - c.show/4
	omitted := c.total - int64(head) - int64(len(c.tail))
	return strings.ToValidUTF8(string(c.all[:head]), "\uFFFD") +
		fmt.Sprintf("\n\n... [%d bytes omitted — output was %d bytes total] ...\n\n", omitted, c.total) +
		strings.ToValidUTF8(string(c.tail), "\uFFFD")
}

func (c *capture) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total == 0 {
		return " (no output)"
	}
	return fmt.Sprintf(" (%d bytes of output)", c.total)
}

func (c *capture) whole() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all
}
