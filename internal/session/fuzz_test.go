package session

import (
	"testing"
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
