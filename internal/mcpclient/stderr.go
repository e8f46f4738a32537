package mcpclient

import (
	"bufio"
	"io"
	"strings"
	"sync"
)

// stderrTailSize is how much of a server's stderr is kept for error messages.
const stderrTailSize = 4 << 10

// stderrSink forwards a server's stderr line by line to an injected writer with
// a "[<server>] " prefix and keeps the last few KiB. Draining never stops while
// the server runs: a full stderr pipe would block the server.
type stderrSink struct {
	w      io.Writer // may be nil: discard, but keep the tail
	prefix string

	mu   sync.Mutex
	tail []byte
}

func (s *stderrSink) drain(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	atLineStart := true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			s.record(chunk, atLineStart)
			atLineStart = chunk[len(chunk)-1] == '\n'
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (s *stderrSink) record(chunk []byte, atLineStart bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail = append(s.tail, chunk...)
	if over := len(s.tail) - stderrTailSize; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	if s.w == nil {
		return
	}
	line := make([]byte, 0, len(s.prefix)+len(chunk)+1)
	if atLineStart {
		line = append(line, s.prefix...)
	}
	line = append(line, chunk...)
	_, _ = s.w.Write(line) // a failing log writer must not stop the drain
}

// tailString returns the kept tail as one trimmed, valid UTF-8 string.
func (s *stderrSink) tailString() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(s.tail), "\uFFFD"))
}
