package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/untrusted"
)

// Caps of read_file.
const (
	DefaultReadLines = 2000      // lines returned when limit is not given
	MaxReadLines     = 5000      // the largest limit honoured
	MaxReadBytes     = 128 << 10 // content bytes per call; the rest is paged with offset
	MaxLineBytes     = 2000      // a longer line is cut, with a marker
	sniffBytes       = 8 << 10   // bytes inspected to tell text from binary
)

type readFile struct{ ws *workspace }

func (t *readFile) Name() string { return "read_file" }

func (t *readFile) Description() string {
	return fmt.Sprintf("Read a text file of the workspace, with line numbers (\"   12\\t<line>\"). "+
		"`offset` is the first line (1-based, default 1), `limit` the number of lines (default %d, at most %d). "+
		"At most %d KiB of content come back per call; lines over %d bytes are cut. When more lines follow, "+
		"the header says so and gives the offset to continue from. Binary files are detected and not shown. "+
		"Paths are relative to the working directory; reading outside it needs the operator's approval.",
		DefaultReadLines, MaxReadLines, MaxReadBytes>>10, MaxLineBytes)
}

func (t *readFile) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"file path, relative to the working directory"},`+
		`"offset":{"type":"integer","minimum":1,"description":"first line to read, 1-based (default 1)"},`+
		fmt.Sprintf(`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"lines to read (default %d)"}`, MaxReadLines, DefaultReadLines), "path")
}

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func (t *readFile) parse(args json.RawMessage) (readArgs, error) {
	var a readArgs
	if err := decode(args, &a); err != nil {
		return a, err
	}
	switch {
	case a.Path == "":
		return a, ErrPathRequired
	case a.Offset < 0:
		return a, fmt.Errorf("offset %d must be >= 1", a.Offset)
	case a.Limit < 0:
		return a, fmt.Errorf("limit %d must be >= 1", a.Limit)
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 {
		a.Limit = DefaultReadLines
	}
	a.Limit = min(a.Limit, MaxReadLines)
	return a, nil
}

func (t *readFile) ArgsSummary(args json.RawMessage) map[string]any {
	return t.ws.pathSummary(risk.Read, args)
}

func (t *readFile) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	a, err := t.parse(args)
	if err != nil {
		return risk.Assessment{}, err
	}
	return t.ws.assess(newPathCall(t.Name(), risk.Read, a.Path))
}

func (t *readFile) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := t.parse(args)
	if err != nil {
		return "", err
	}
	c := newPathCall(t.Name(), risk.Read, a.Path)
	path, err := t.ws.recheck(ctx, c)
	if err != nil {
		return "", err
	}
	f, size, err := t.ws.openRegular(path)
	if err != nil {
		return "", t.ws.refused(ctx, c, fmt.Errorf("read_file %s: %w", a.Path, err))
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(sniffBytes); isBinary(head) {
		return fmt.Sprintf("%s: binary file (%d bytes); not shown", a.Path, size), nil
	}
	body, shown, more, err := numberLines(br, a.Offset, a.Limit)
	if err != nil {
		return "", fmt.Errorf("read_file %s: %w", a.Path, err)
	}
	header := fmt.Sprintf("%s (%d bytes)", a.Path, size)
	switch {
	case shown == 0 && a.Offset > 1:
		return "", fmt.Errorf("read_file %s: offset %d is past the end of the file", a.Path, a.Offset)
	case shown == 0:
		header += ": empty file"
	case more:
		header += fmt.Sprintf(": lines %d-%d; more lines follow, continue with offset=%d", a.Offset, a.Offset+shown-1, a.Offset+shown)
	default:
		header += fmt.Sprintf(": lines %d-%d (end of file)", a.Offset, a.Offset+shown-1)
	}
	return header + "\n" + untrusted.Wrap("read_file", body), nil
}

// isBinary: a NUL byte, or text that is not UTF-8, in the first bytes (a
// rune cut by the end of the sniffed bytes does not count).
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	for cut := 0; cut < utf8.UTFMax && cut <= len(head); cut++ {
		if utf8.Valid(head[:len(head)-cut]) {
			return cut > 0 && !utf8.RuneStart(head[len(head)-cut])
		}
	}
	return true
}

// numberLines renders lines offset..offset+limit-1 as "%6d\t<line>", within
// MaxReadBytes, and says whether more lines follow.
func numberLines(r *bufio.Reader, offset, limit int) (string, int, bool, error) {
	var b strings.Builder
	shown := 0
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a very long line: keep its start only
			keep := append([]byte(nil), line[:min(len(line), MaxLineBytes+1)]...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			line = keep
		}
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				return b.String(), shown, false, nil
			}
			return "", 0, false, err
		}
		if n < offset {
			continue
		}
		if shown == limit || b.Len() >= MaxReadBytes {
			return b.String(), shown, true, nil
		}
		text := strings.TrimRight(string(line), "\r\n")
		if len(text) > MaxLineBytes {
			text = strings.ToValidUTF8(text[:MaxLineBytes], "") + fmt.Sprintf(" … [line cut at %d bytes]", MaxLineBytes)
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, text)
		shown++
		if err == io.EOF {
			return b.String(), shown, false, nil
		}
	}
}
