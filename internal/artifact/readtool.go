package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/untrusted"
)

// Paging limits of artifact_read, in bytes.
const (
	DefaultReadLimit = 65536
	MaxReadLimit     = 262144
)

// ReadTool is the built-in artifact_read tool: it pages through artifacts
// registered in a Store, looked up by id only. It satisfies the agent loop's
// Tool interface.
type ReadTool struct {
	store *Store
}

// NewReadTool returns artifact_read over s.
func NewReadTool(s *Store) *ReadTool { return &ReadTool{store: s} }

// Name returns "artifact_read".
func (t *ReadTool) Name() string { return "artifact_read" }

// Description tells the model what the tool does.
func (t *ReadTool) Description() string {
	return "Read part of an artifact by its id (the id shown in an `- artifact \"<id>\"` line " +
		"or in a truncation notice). Returns up to `limit` bytes starting at byte `offset`; " +
		"when the output says TRUNCATED, call again with the next offset to continue."
}

// Schema returns the JSON schema of the arguments.
func (t *ReadTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"id":{"type":"string","description":"artifact id"},` +
		`"offset":{"type":"integer","minimum":0,"description":"first byte to read (default 0)"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":262144,"description":"bytes to read (default 65536)"}` +
		`},"required":["id"],"additionalProperties":false}`)
}

type readArgs struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Limit  int64  `json:"limit"`
}

// Call serves one page of an artifact: a header naming the id, media type,
// size, short hash and byte range, then the bytes fenced as untrusted
// content. The file is reopened without following symlinks and must still be
// the registered file, with the registered size and hash (see readPage).
func (t *ReadTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := parseReadArgs(args)
	if err != nil {
		return "", err
	}
	e, ok := t.store.lookup(a.ID)
	if !ok {
		return "", t.unknown(a.ID)
	}
	if a.Offset >= e.Size && !(a.Offset == 0 && e.Size == 0) {
		return "", fmt.Errorf("offset %d is past the end (size %d)", a.Offset, e.Size)
	}
	page, err := t.readPage(ctx, e, a.Offset, a.Limit)
	if err != nil {
		return "", err
	}
	start, end := a.Offset, a.Offset+int64(len(page))
	header := fmt.Sprintf("artifact %s (%s, %d bytes, sha256:%s) — bytes %d..%d of %d",
		untrusted.OneLine(e.ID, MaxFieldRunes), untrusted.OneLine(e.MediaType, MaxFieldRunes), e.Size, e.SHA256[:12], start, end, e.Size)
	if end < e.Size {
		header += " — TRUNCATED, call again with offset to continue"
	}
	return header + "\n" + untrusted.Wrap("artifact_read", strings.ToValidUTF8(string(page), "\uFFFD")), nil
}

func parseReadArgs(raw json.RawMessage) (readArgs, error) {
	var a readArgs
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, fmt.Errorf("invalid arguments: %v", err)
		}
	}
	a.ID = strings.TrimSpace(a.ID)
	switch {
	case a.ID == "":
		return a, ErrIDRequired
	case a.Offset < 0:
		return a, fmt.Errorf("offset %d must be >= 0", a.Offset)
	case a.Limit < 0:
		return a, fmt.Errorf("limit %d must be >= 0", a.Limit)
	case a.Limit == 0:
		a.Limit = DefaultReadLimit
	case a.Limit > MaxReadLimit:
		a.Limit = MaxReadLimit
	}
	return a, nil
}

// unknown lists what is registered so the model can correct itself.
func (t *ReadTool) unknown(id string) error {
	ids := t.store.IDs()
	list := "(none)"
	if len(ids) > 50 {
		ids = append(ids[:50:50], "…")
	}
	if len(ids) > 0 {
		list = strings.Join(ids, ", ")
	}
	return fmt.Errorf("%w %q — registered artifacts: %s", ErrUnknownID, untrusted.OneLine(id, 128), untrusted.OneLine(list, MaxFieldRunes))
}

// readPage reopens the registered file below its root without following a
// symlink, checks it is still the registered file (same inode, one link,
// same size), then reads it once from the descriptor: the whole file is
// re-hashed and bytes [offset, offset+limit) are taken from that same pass,
// so an in-place rewrite is refused, never served under the old hash. The
// page ends on a UTF-8 boundary when one is near.
func (t *ReadTool) readPage(ctx context.Context, e *entry, offset, limit int64) ([]byte, error) {
	f, err := e.loc.open()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, withSentinel(ErrRemoved, "artifact %q is no longer available (removed by cleanup)", e.ID)
		}
		return nil, withSentinel(ErrChanged, "artifact %q cannot be opened safely (no longer a plain file reached without symlinks)", e.ID)
	}
	defer f.Close()
	if err := checkSame(e, f); err != nil {
		return nil, err
	}
	sum, page, err := scan(ctx, f, e.Size, offset, limit) // the page stops at the end
	switch {
	case errors.Is(err, errSizeChanged):
		return nil, withSentinel(ErrChanged, "artifact %q changed on disk while being read (%v)", e.ID, err)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, fmt.Errorf("artifact %q: read: %w", e.ID, err)
	case sum != e.SHA256:
		return nil, withSentinel(ErrChanged, "artifact %q changed on disk: content no longer matches its registered sha256", e.ID)
	}
	if offset+int64(len(page)) < e.Size {
		page = trimPartialRune(page)
	}
	return page, nil
}

// checkSame verifies the open file is the registered one: a regular file
// with the same inode, a single link and the registered size.
func checkSame(e *entry, f *os.File) error {
	st, err := stat(f)
	switch {
	case err != nil:
		return withSentinel(ErrChanged, "artifact %q cannot be inspected", e.ID)
	case !st.mode.IsRegular() || st.id != e.loc.id:
		return withSentinel(ErrChanged, "artifact %q changed on disk: the file was replaced since it was registered", e.ID)
	case st.nlink != 1:
		return withSentinel(ErrChanged, "artifact %q changed on disk: it has %d hard links now", e.ID, st.nlink)
	case st.size != e.Size:
		return withSentinel(ErrChanged, "artifact %q changed on disk: %d bytes now, %d when registered", e.ID, st.size, e.Size)
	}
	return nil
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, unless
// that would leave nothing (binary data, or a limit smaller than one rune).
func trimPartialRune(b []byte) []byte {
	for back := 1; back <= utf8.UTFMax && back <= len(b); back++ {
		c := b[len(b)-back]
		if c < 0x80 {
			return b // ASCII: the page already ends on a boundary
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-back:]) && back < len(b) {
				return b[:len(b)-back]
			}
			return b
		}
	}
	return b
}
