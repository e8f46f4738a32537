package mcpclient

import (
	"bufio"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/untrusted"
)

// stderrTailSize is how much of a server's stderr is kept for error messages.
const stderrTailSize = 4 << 10

// stderrSink forwards a server's stderr line by line to an injected writer with
// a "[<server>] " prefix and keeps the last few KiB. Draining never stops while
// the server runs: a full stderr pipe would block the server. What it writes
// has passed untrusted.Terminal: the writer is usually odek's terminal, and a
// server must not drive it with escape sequences.
type stderrSink struct {
	w      io.Writer // may be nil: discard, but keep the tail
	prefix string

	mu   sync.Mutex
	tail []byte
}

func (s *stderrSink) drain(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	atLineStart := true
	var carry []byte // an incomplete UTF-8 sequence or CR held for the next chunk
	for {
		chunk, err := br.ReadSlice('\n')
		end := err != nil && err != bufio.ErrBufferFull
		if len(carry) > 0 {
			chunk = append(carry, chunk...)
			carry = nil
		}
		if !end {
			chunk, carry = splitCarry(chunk)
		}
		if len(chunk) > 0 {
			s.record(chunk, atLineStart)
			atLineStart = chunk[len(chunk)-1] == '\n'
		}
		if end {
			return
		}
	}
}

// splitCarry holds back the end of a chunk that a line split cut in two: the
// start of a multi-byte rune, or a CR that may be half of CR LF. The copy
// keeps it safe from the reader's next fill.
func splitCarry(chunk []byte) ([]byte, []byte) {
	n := len(chunk)
	if n == 0 || chunk[n-1] == '\n' {
		return chunk, nil
	}
	cut := n
	if chunk[n-1] == '\r' {
		cut = n - 1
	} else {
		for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
			if utf8.RuneStart(chunk[i]) {
				if !utf8.FullRune(chunk[i:]) {
					cut = i
				}
				break
			}
		}
	}
	return chunk[:cut], append([]byte(nil), chunk[cut:]...)
}

func (s *stderrSink) record(raw []byte, atLineStart bool) {
	chunk := []byte(untrusted.Terminal(string(raw)))
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

// tailString returns the kept tail as one trimmed, valid UTF-8 string, already
// made safe for a terminal.
func (s *stderrSink) tailString() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(s.tail), "\uFFFD"))
}
