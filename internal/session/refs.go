package session

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/untrusted"
)

// ExternalRef points at state outside odek (a CI run, a dashboard). odek
// stores and shows it and never dereferences it (docs/EXTENSIONS.md).
type ExternalRef struct {
	Kind      string    `json:"kind"`
	URI       string    `json:"uri"`
	CreatedBy string    `json:"created_by"`
	ReadOnly  *bool     `json:"read_only,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Limits of the external-state-ref schema.
const (
	maxRefKind      = 64
	maxRefURI       = 2048
	maxRefCreatedBy = 128
	cliCreator      = "cli" // created_by of the kind=uri shorthand
)

// refKeys are the fields of the long form; a comma followed by anything else
// belongs to the previous value (URIs may contain commas).
var refKeys = []string{"kind", "uri", "created_by", "read_only"}

// ParseExternalRef parses an --external-ref value: the long form
// kind=..,uri=..,created_by=..[,read_only=..] or the shorthand kind=uri
// (created_by "cli"). The result is validated.
func ParseExternalRef(s string) (ExternalRef, error) {
	bad := func(reason string) (ExternalRef, error) {
		return ExternalRef{}, &RefError{Ref: untrusted.OneLine(s, 80), Reason: reason}
	}
	if !strings.HasPrefix(s, "kind=") {
		kind, uri, ok := strings.Cut(s, "=")
		if !ok {
			return bad("want kind=..,uri=..,created_by=..[,read_only=..] or kind=uri")
		}
		r := ExternalRef{Kind: kind, URI: uri, CreatedBy: cliCreator}
		if err := r.Validate(); err != nil {
			return bad(err.Error())
		}
		return r, nil
	}
	fields := map[string]string{}
	last := ""
	for part := range strings.SplitSeq(s, ",") {
		key, val, ok := strings.Cut(part, "=")
		if !ok || !isRefKey(key) {
			if last == "" {
				return bad("want kind=..,uri=..,created_by=..[,read_only=..] or kind=uri")
			}
			fields[last] += "," + part
			continue
		}
		if _, dup := fields[key]; dup {
			return bad(key + " is given twice")
		}
		fields[key], last = val, key
	}
	r := ExternalRef{Kind: fields["kind"], URI: fields["uri"], CreatedBy: fields["created_by"]}
	if _, ok := fields["created_by"]; !ok {
		return bad("created_by is required in the long form (the kind=uri shorthand stands for created_by=cli)")
	}
	if v, ok := fields["read_only"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad("read_only must be true or false, got " + strconv.Quote(v))
		}
		r.ReadOnly = &b
	}
	if err := r.Validate(); err != nil {
		return bad(err.Error())
	}
	return r, nil
}

func isRefKey(k string) bool {
	for _, known := range refKeys {
		if k == known {
			return true
		}
	}
	return false
}

// refReason is a validation failure of one field.
type refReason string

func (r refReason) Error() string { return string(r) }

// Validate checks the schema's limits: kind 1–64 of [a-z0-9_-], uri 1–2048
// characters without control characters, created_by 1–128 characters without
// control characters.
func (r ExternalRef) Validate() error {
	switch n := utf8.RuneCountInString(r.Kind); {
	case n == 0:
		return refReason("kind is empty")
	case n > maxRefKind:
		return refReason("kind is " + strconv.Itoa(n) + " characters, over the limit of 64")
	case strings.Trim(r.Kind, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "":
		return refReason("kind may only contain a-z, 0-9, _ and -")
	}
	if err := textField("uri", r.URI, maxRefURI); err != nil {
		return err
	}
	return textField("created_by", r.CreatedBy, maxRefCreatedBy)
}

func textField(name, v string, limit int) error {
	n := utf8.RuneCountInString(v)
	switch {
	case n == 0:
		return refReason(name + " is empty")
	case n > limit:
		return refReason(name + " is " + strconv.Itoa(n) + " characters, over the limit of " + strconv.Itoa(limit))
	case !utf8.ValidString(v):
		return refReason(name + " is not valid UTF-8")
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return refReason(name + " contains a control character")
	}
	return nil
}

// MergeRefs appends the refs of add that are new on (kind, uri, created_by),
// stamping created_at with now; the first occurrence wins. It returns the
// merged list and how many refs were added.
func MergeRefs(have, add []ExternalRef, now time.Time) ([]ExternalRef, int) {
	type key struct{ kind, uri, by string }
	seen := make(map[key]bool, len(have)+len(add))
	for _, r := range have {
		seen[key{r.Kind, r.URI, r.CreatedBy}] = true
	}
	added := 0
	for _, r := range add {
		k := key{r.Kind, r.URI, r.CreatedBy}
		if seen[k] {
			continue
		}
		seen[k] = true
		r.CreatedAt = now.UTC()
		have = append(have, r)
		added++
	}
	return have, added
}
