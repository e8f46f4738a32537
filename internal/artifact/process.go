package artifact

import (
	"strings"
	"unicode/utf8"
)

// ProcessOptions says whose result Process renders and under which limits.
type ProcessOptions struct {
	Server, Tool string   // named in the truncation notice
	Roots        []string // the server's artifact_roots; empty rejects every ref
	Within       string   // when set, roots count only where they resolve inside it
	MaxChars     int      // max_result_chars; <= 0 means DefaultMaxChars
}

// Processed is a result ready for the model.
type Processed struct {
	Text          string     // the render, within MaxChars runes
	ArtifactCount int        // metadata lines in Text
	Truncated     bool       // Text was cut and ends with the notice
	ObservedChars int        // runes of the untruncated render
	Full          string     // the untruncated render when Truncated, else ""
	Artifacts     []Verified // refs that passed validation, in render order
}

// Process renders the text items of one tool result. Each item is probed for
// an envelope; envelope texts are merged and their refs validated (any
// rejection fails the whole result), non-envelope items follow the metadata
// lines. The render is then fitted to MaxChars: text shrinks first, metadata
// lines are kept, and they are cut from the end only if they alone overflow.
func Process(items []string, o ProcessOptions) (*Processed, error) {
	var heads, tails []string
	var refs []Ref
	for _, item := range items {
		env, ok, err := ParseEnvelope(item)
		if err != nil {
			return nil, err
		}
		if !ok {
			tails = append(tails, item)
			continue
		}
		heads = append(heads, env.Text)
		refs = append(refs, env.Artifacts...)
	}
	if len(heads) == 0 {
		// Plain result: the items are the text, nothing follows a render.
		return fit(layout{head: cleanText(strings.Join(tails, "\n"))}, nil, o), nil
	}
	verified, err := validateAll(refs, o.Roots, o.Within)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(verified))
	for i := range verified {
		lines[i] = metadataLine(&verified[i])
	}
	l := layout{
		head: cleanText(strings.Join(heads, "\n")),
		meta: strings.Join(lines, "\n"),
		tail: cleanText(strings.Join(tails, "\n")),
	}
	return fit(l, verified, o), nil
}

// validateAll enforces the per-result ref limit and unique ids, then
// validates each ref against the roots that lie within within ("": all).
func validateAll(refs []Ref, roots []string, within string) ([]Verified, error) {
	if len(refs) > MaxRefs {
		return nil, malformed("%d artifact refs exceed the limit of %d", len(refs), MaxRefs)
	}
	seen := make(map[string]bool, len(refs))
	out := make([]Verified, 0, len(refs))
	for _, ref := range refs {
		if ref.ID != "" && seen[ref.ID] {
			return nil, refErr(ref, "duplicate id: ids must be unique within a result")
		}
		seen[ref.ID] = true
		v, err := validate(ref, roots, within)
		if err != nil {
			return nil, err
		}
		out = append(out, *v)
	}
	return out, nil
}

// fit applies the rune limit to a render.
func fit(l layout, verified []Verified, o ProcessOptions) *Processed {
	limit := o.MaxChars
	if limit <= 0 {
		limit = DefaultMaxChars
	}
	full := l.render()
	p := &Processed{Artifacts: verified}
	// A byte length within the limit proves the rune count is too, so the
	// (possibly huge) render is counted only when it might overflow.
	if len(full) <= limit {
		p.Text, p.ObservedChars = full, utf8.RuneCountInString(full)
	} else if p.ObservedChars = utf8.RuneCountInString(full); p.ObservedChars <= limit {
		p.Text = full
	} else {
		notice := TruncationNotice(o.Server, o.Tool, p.ObservedChars, limit)
		p.Text, p.Truncated, p.Full = shrink(l, notice, limit), true, full
	}
	p.ArtifactCount = countMetadataLines(p.Text)
	return p
}

// shrink cuts a render that overflows limit so that it, with the notice,
// fits: first the text, then (only when metadata alone overflows) the
// metadata from its end, finally the notice itself.
func shrink(l layout, notice string, limit int) string {
	nr := utf8.RuneCountInString(notice)
	if nr >= limit {
		return cutRunes(notice, limit)
	}
	room := limit - nr
	if l.meta == "" {
		return cutRunes(joinNonEmpty(l.head, l.tail), room) + notice
	}
	// Every separator is counted even when its neighbour ends up empty, so the
	// sum is an upper bound and the result never exceeds limit.
	textRoom := room - utf8.RuneCountInString(l.meta) - 2
	if textRoom <= 0 {
		return cutRunes(l.meta, room) + notice
	}
	head := cutRunes(l.head, textRoom)
	tail := ""
	if len(head) == len(l.head) {
		tail = cutRunes(l.tail, textRoom-utf8.RuneCountInString(head))
	}
	return joinNonEmpty(head, l.meta, tail) + notice
}
