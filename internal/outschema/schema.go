// Package outschema holds a run's final answer to a JSON Schema
// (--output-schema): it compiles the schema file, extracts the one JSON value
// of an answer, validates it, and writes the message that asks the model to
// try again.
//
// Invariants:
//   - A Schema is compiled once, before the first model call, from one
//     self-contained file (draft 2020-12, or draft-07 when $schema says so);
//     references to other documents are refused, never fetched.
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

	"github.com/santhosh-tekuri/jsonschema/v6"
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
	sch    *jsonschema.Schema
}

// Drafts accepted in $schema; a schema without $schema is draft 2020-12.
var drafts = map[string]*jsonschema.Draft{
	"https://json-schema.org/draft/2020-12/schema":  jsonschema.Draft2020,
	"https://json-schema.org/draft/2020-12/schema#": jsonschema.Draft2020,
	"http://json-schema.org/draft-07/schema":        jsonschema.Draft7,
	"http://json-schema.org/draft-07/schema#":       jsonschema.Draft7,
	"https://json-schema.org/draft-07/schema":       jsonschema.Draft7,
	"https://json-schema.org/draft-07/schema#":      jsonschema.Draft7,
}

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
// it for the compiler.
func Compile(file string, data []byte) (*Schema, error) {
	doc, err := decodeValue(data)
	if err != nil {
		return nil, &SchemaError{File: file, Msg: "not JSON: " + err.Error()}
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, &SchemaError{File: file, Msg: "the schema must be a JSON object"}
	}
	if err := checkDraft(obj); err != nil {
		return nil, &SchemaError{File: file, Pointer: "/$schema", Msg: err.Error()}
	}
	loc := fileURL(file)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(loc, doc); err != nil {
		return nil, &SchemaError{File: file, Msg: err.Error()}
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, compileError(file, loc, obj, err)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, data) // data decoded above, so it is valid JSON
	sum := sha256.Sum256(data)
	return &Schema{
		file: file, raw: compact.Bytes(), format: withoutKey(compact.Bytes(), "$schema"), sum: hex.EncodeToString(sum[:]),
		name: nameFor(obj, file), strict: strictEligible(obj), sch: sch,
	}, nil
}

func checkDraft(obj map[string]any) error {
	v, ok := obj["$schema"]
	if !ok {
		return nil
	}
	s, _ := v.(string)
	if _, ok := drafts[s]; !ok {
		return fmt.Errorf("unsupported $schema %s: use draft 2020-12 (%q) or draft-07", quoteJSON(v), "https://json-schema.org/draft/2020-12/schema")
	}
	return nil
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

// refuseLoader keeps a schema self-contained: the compiler asks it for any
// document other than the schema file and the built-in metaschemas.
type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) { return nil, errExternalRef }

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
