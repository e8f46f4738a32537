package session

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// FuzzParseExternalRef: any accepted ref satisfies the schema.
func FuzzParseExternalRef(f *testing.F) {
	for _, s := range []string{"ci=https://x", "kind=a,uri=b,created_by=c,read_only=true", "kind=a,uri=b,c,created_by=d", "=", "kind="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseExternalRef(s)
		if err != nil {
			return
		}
		if verr := r.Validate(); verr != nil {
			t.Fatalf("accepted %q but it fails validation: %v", s, verr)
		}
	})
}

// FuzzDecode: session files are read back from disk, which anyone with
// access to the home directory can edit; decoding never panics and an
// accepted file always carries the expected id and a sane boundary.
func FuzzDecode(f *testing.F) {
	id := "20260807-0123456789abcdef0123456789abcdef"
	f.Add([]byte(`{"id":"` + id + `","messages":[{"role":"user","content":"x"}],"redact_boundary":5}`))
	f.Add([]byte(`{"id":"` + id + `","redact_boundary":-1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sess, err := Decode(id, data)
		if err != nil {
			return
		}
		if sess.ID != id || sess.RedactBoundary < 0 || sess.RedactBoundary > len(sess.Messages) {
			t.Fatalf("accepted a bad session: id %q boundary %d of %d", sess.ID, sess.RedactBoundary, len(sess.Messages))
		}
		sess.Trim(3)
		sess.Update(sess.Messages)
	})
}

// FuzzDecodeSigned: a session file checked against a key never panics, and
// one accepted as verified decodes to exactly what was signed: a mutation
// of a signed file passes only if it changes nothing odek reads.
func FuzzDecodeSigned(f *testing.F) {
	id := "20260807-0123456789abcdef0123456789abcdef"
	key := bytes.Repeat([]byte{7}, keyBytes)
	orig := &Session{ID: id, Model: "m", Messages: []llm.Message{{Role: llm.RoleTool, Name: "read_file", ToolCallID: "c1", Content: "x"}}}
	unsigned, err := json.Marshal(orig)
	if err != nil {
		f.Fatal(err)
	}
	signed, _ := sign(key, unsigned)
	f.Add(signed)
	f.Add(bytes.Replace(signed, []byte("read_file"), []byte("plan"), 1))
	f.Add([]byte(`{"mac":"00","id":"` + id + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sess, err := decode(id, data, key)
		if err != nil || sess.Unverified() {
			return
		}
		got, err := json.Marshal(sess)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, unsigned) {
			t.Fatalf("a changed file verified:\n%s\nsigned was\n%s", got, unsigned)
		}
	})
}
