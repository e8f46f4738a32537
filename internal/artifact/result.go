package artifact

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/untrusted"
)

// ResultStore keeps what a rendered result points at: SaveResult stores the
// full text behind a truncation notice as a run artifact, and Register makes
// a validated ref readable by artifact_read (by id, never by path). *Store
// implements it.
type ResultStore interface {
	SaveResult(source, mediaType string, data []byte) (id string, err error)
	Register(v Verified, id string) error
}

// ResultOptions says whose result is rendered and under which limits.
type ResultOptions struct {
	Server, Tool string   // named in notices and in the untrusted source
	Roots        []string // the server's artifact_roots; empty rejects every ref
	// Within, when set, is the only tree roots may lie in, their symlinks
	// resolved when the ref is checked: a project server's directory, so
	// that neither a root its file names outside nor one it swaps for a
	// symlink out of the workspace makes odek read a file for it.
	Within   string
	MaxChars int // max_result_chars; <= 0 means DefaultMaxChars
	Store    ResultStore
}

// Rendered is a tool result ready for the model.
type Rendered struct {
	// Text is the render wrapped as untrusted content.
	Text string
	// ArtifactCount is the number of "- artifact " metadata lines in Text.
	ArtifactCount int
	// Truncated reports that MaxChars cut the result.
	Truncated bool
}

// resultMediaType is the media type of a saved truncated result.
const resultMediaType = "text/plain; charset=utf-8"

// source is the untrusted-content source of the tool's output.
func (o ResultOptions) source() string { return "mcp:" + o.Server + ":" + o.Tool }

// RenderResult renders a successful tool result: text items, one summary line
// per non-text item, envelope refs validated against Roots (a rejected ref
// fails the whole result), MaxChars applied with the contract's notice, and
// the untrusted wrapper around it all. Validated refs are registered with the
// Store; a truncated result is saved whole and the notice followed by the
// metadata line of the saved artifact, or by NotSavedNotice when the Store
// refused it (the run's cap).
func RenderResult(items []Content, o ResultOptions) (*Rendered, error) {
	p, err := Process(contentLines(items), ProcessOptions{Server: o.Server, Tool: o.Tool, Roots: o.Roots, Within: o.Within, MaxChars: o.MaxChars})
	if err != nil {
		if re := (*RefError)(nil); errors.As(err, &re) {
			err = fmt.Errorf("artifact ref rejected: %w", err)
		}
		return nil, err
	}
	text, count := p.Text, p.ArtifactCount
	if o.Store != nil {
		for _, v := range p.Artifacts {
			// A ref whose id is reserved for saved results stays unreadable;
			// its metadata line is still shown.
			_ = o.Store.Register(v, v.Ref.ID)
		}
		if p.Truncated {
			id, err := o.Store.SaveResult(o.source(), resultMediaType, []byte(p.Full))
			if err != nil {
				text += "\n" + NotSavedNotice(err, "untruncated result of "+o.Server+"__"+o.Tool, int64(len(p.Full)))
			} else {
				text += "\n" + FormatMetadataLine(id, resultMediaType, int64(len(p.Full)), "",
					"full untruncated result of "+o.Server+"__"+o.Tool+"; page through it with artifact_read")
				count++
			}
		}
	}
	return &Rendered{Text: untrusted.Wrap(o.source(), text), ArtifactCount: count, Truncated: p.Truncated}, nil
}

// RenderError renders an isError result: its items joined and sanitised as
// a successful result's text is (hidden runes, lines that mimic metadata),
// capped at MaxChars with the standard notice, wrapped as untrusted.
func RenderError(items []Content, o ResultOptions) string {
	text := cleanText(strings.Join(contentLines(items), "\n"))
	limit := o.MaxChars
	if limit <= 0 {
		limit = DefaultMaxChars
	}
	if n := utf8.RuneCountInString(text); n > limit {
		notice := TruncationNotice(o.Server, o.Tool, n, limit)
		text = cutRunes(text, max(limit-utf8.RuneCountInString(notice), 0)) + notice
	}
	return untrusted.Wrap(o.source(), text)
}
