// Package outschema holds a run's final answer to a JSON Schema
// (--output-schema): it compiles the schema file, extracts the one JSON value
// of an answer, validates it, and writes the message that asks the model to
// try again.
//
// Invariants:
//   - A Schema is compiled once, before the first model call, from one
//     self-contained file (draft 2020-12, or draft-07 when $schema says so);
//     references to other documents are refused, never fetched; a schema
//     that is not well formed or whose $refs loop is refused there.
//   - Model output is untrusted: Check never panics, refuses anything but
//     exactly one JSON value (bare, or in one fenced block), refuses duplicate
//     object keys and invalid UTF-8, and returns the value compacted with its
//     key order kept.
//   - Every message built from the answer is bounded and one line per entry.
//
// The package is pure: it reads the schema file in Load and nothing else.
package outschema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a compiled output schema. It is immutable and safe for
// concurrent use.
type Schema struct {
	file   string
	raw    json.RawMessage // the document, compacted
	format json.RawMessage // raw without the root $schema, for response_format
	sum    string
	name   string
	strict bool
	doc    *doc                 // the checked document, for the walk that places violations
	sch    *jsonschema.Resolved // the validator
}

// Drafts accepted in $schema, each with the spelling the validator knows; a
// schema without $schema is draft 2020-12.
var drafts = map[string]string{
	"https://json-schema.org/draft/2020-12/schema":  draft2020,
	"https://json-schema.org/draft/2020-12/schema#": draft2020,
	"http://json-schema.org/draft-07/schema":        draft7,
	"http://json-schema.org/draft-07/schema#":       draft7,
	"https://json-schema.org/draft-07/schema":       draft7,
	"https://json-schema.org/draft-07/schema#":      draft7,
}

const (
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
	draft7    = "http://json-schema.org/draft-07/schema#"
)

// MaxFileBytes caps a schema file: it goes into every request.
const MaxFileBytes = 1 << 20

// Load reads and compiles the schema file at path, which must be a regular
// file of at most MaxFileBytes.
func Load(path string) (*Schema, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, &SchemaError{File: path, Msg: err.Error()}
	}
	return Compile(path, data)
}

// readFile refuses what is not a regular file before opening it (a FIFO
// would block the open) and reads at most MaxFileBytes.
func readFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, errors.New(unwrapPathError(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New(unwrapPathError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, errors.New(unwrapPathError(err))
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	return data, nil
}

// Compile compiles a schema document; file names it in errors and locates
// it for the validator. Everything wrong with the schema is found here, so
// a run refuses it before any model call.
func Compile(file string, data []byte) (*Schema, error) {
	v, err := decodeValue(data)
	if err != nil {
		return nil, &SchemaError{File: file, Msg: "not JSON: " + err.Error()}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &SchemaError{File: file, Msg: "the schema must be a JSON object"}
	}
	draft, err := checkDraft(obj)
	if err != nil {
		return nil, &SchemaError{File: file, Pointer: "/$schema", Msg: err.Error()}
	}
	d, se := wellFormed(obj, draft == draft7)
	if se != nil {
		se.File = file
		return nil, se
	}
	sch, err := resolve(file, data, draft)
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, data) // data decoded above, so it is valid JSON
	sum := sha256.Sum256(data)
	return &Schema{
		file: file, raw: compact.Bytes(), format: withoutKey(compact.Bytes(), "$schema"), sum: hex.EncodeToString(sum[:]),
		name: nameFor(obj, file), strict: strictEligible(obj), doc: d, sch: sch,
	}, nil
}

// resolve builds the validator for a well-formed document.
func resolve(file string, data []byte, draft string) (*jsonschema.Resolved, error) {
	var js jsonschema.Schema
	if err := json.Unmarshal(data, &js); err != nil {
		return nil, &SchemaError{File: file, Msg: err.Error()}
	}
	js.Schema = draft
	loc := fileURL(file)
	rs, err := js.Resolve(&jsonschema.ResolveOptions{BaseURI: loc, Loader: refuseLoader})
	if err != nil {
		msg := strings.TrimPrefix(strings.ReplaceAll(err.Error(), loc, file), "jsonschema.Schema: ")
		return nil, &SchemaError{File: file, Msg: msg}
	}
	return rs, nil
}

// checkDraft returns the draft the document's $schema names.
func checkDraft(obj map[string]any) (string, error) {
	v, ok := obj["$schema"]
	if !ok {
		return draft2020, nil
	}
	s, _ := v.(string)
	d, ok := drafts[s]
	if !ok {
		return "", fmt.Errorf("unsupported $schema %s: use draft 2020-12 (%q) or draft-07", quoteJSON(v), draft2020)
	}
	return d, nil
}

// File is the schema's path as given.
func (s *Schema) File() string { return s.file }

// JSON is the schema document, compacted (for response_format).
func (s *Schema) JSON() json.RawMessage { return s.raw }

// ResponseSchema is the document for response_format: JSON without its root
// $schema, which says how odek reads the schema but is not a keyword every
// structured-output endpoint accepts.
func (s *Schema) ResponseSchema() json.RawMessage { return s.format }

// SHA256 is the hex SHA-256 of the schema file's bytes.
func (s *Schema) SHA256() string { return s.sum }

// Name is the response_format name: the schema's title (or the file's base
// name) reduced to [A-Za-z0-9_-]{1,64}, else "final_answer".
func (s *Schema) Name() string { return s.name }

// Strict reports whether the schema already meets the strict subset OpenAI
// requires for strict structured outputs (every object closed, every
// property required, only supported keywords), so asking for strict
// adherence cannot make the endpoint reject the request.
func (s *Schema) Strict() bool { return s.strict }

// refuseLoader keeps a schema self-contained: the validator asks it for any
// document other than the schema file (wellFormed has refused those already).
func refuseLoader(*url.URL) (*jsonschema.Schema, error) { return nil, errExternalRef }

var errExternalRef = errors.New("only references inside the schema file are supported")

func fileURL(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func unwrapPathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func quoteJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// withoutKey returns a compact JSON object without one top-level member,
// the other members' bytes and order untouched.
func withoutKey(obj []byte, key string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // '{'
		return obj
	}
	out := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return obj
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return obj
		}
		k := tok.(string)
		if k == key {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		out = append(append(append(out, kb...), ':'), val...)
	}
	return append(out, '}')
}
