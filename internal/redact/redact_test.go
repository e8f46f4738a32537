package redact

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	Register("s3cr3t-literal-value", "short")
	tests := []struct{ in, want string }{
		{"", ""},
		{"nothing here", "nothing here"},
		{"key sk-proj-abcdefghijklmnopqrstuv in text", "key [REDACTED] in text"},
		{"Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer [REDACTED]"},
		{"curl -H 'authorization: basic dXNlcjpwYXNz'", "curl -H 'authorization: basic [REDACTED]'"},
		{`{"api_key": "hunter2hunter2"}`, `{"api_key": "[REDACTED]"}`},
		{`"{\"api_key\": \"hunter2hunter2\"}"`, `"{\"api_key\": \"[REDACTED]\"}"`},
		{"PASSWORD=correcthorse", "PASSWORD=[REDACTED]"},
		{"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", "GITHUB_TOKEN=[REDACTED]"},
		{"aws AKIAABCDEFGHIJKLMNOP", "aws [REDACTED]"},
		{"uses s3cr3t-literal-value here", "uses [REDACTED] here"},
		{"a short word", "a short word"},
		{"x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\ny", "x\n[REDACTED]\ny"},
		{"tokens: 12", "tokens: 12"},
		{"DATABASE_URL=postgres://app:s3cr3tpass@db:5432/app", "DATABASE_URL=postgres://app:[REDACTED]@db:5432/app"},
		{"github__ghp_abcdefghijklmnopqrstuvwxyz0123", "github__[REDACTED]"},
		{"AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "[REDACTED],[REDACTED]"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRegisteredLiterals(t *testing.T) {
	Register("lit-8chr", "lit-7ch", "")       // 8 bytes is the minimum, 7 is ignored
	Register("nested-a1", "nested-a1-longer") // one contains the other
	Register("zz-shortr")
	Register("zz-shortr-but-longer-one") // registered after the shorter one
	Register("lit-8chr")                 // again: no duplicate entry
	tests := []struct{ in, want string }{
		{"a lit-8chr b", "a " + Mask + " b"},
		{"a lit-7ch b", "a lit-7ch b"},
		{"see nested-a1-longer", "see " + Mask},
		{"see nested-a1.", "see " + Mask + "."},
		{"x zz-shortr-but-longer-one y", "x " + Mask + " y"},
		{"lit-8chrlit-8chr", Mask + Mask},
	}
	for _, tt := range tests {
		masked(t, tt.in, tt.want)
	}
	n := 0
	for _, v := range registered() {
		if v == "lit-8chr" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("lit-8chr registered %d times", n)
	}
}

func registered() []string {
	mu.RLock()
	defer mu.RUnlock()
	return append([]string(nil), literals...)
}

func FuzzString(f *testing.F) {
	Register("fuzz-secret-value-123")
	f.Add("token=abcdefgh fuzz-secret-value-123", "", uint8(0))
	f.Add("Bearer xxxxxxxxxxxx", "x", uint8(1))
	f.Add(`{\"password\":\"`, `\"}`, uint8(2))
	f.Add("DATABASE_URL=", "/db", uint8(3))
	f.Add("a,", ",b", uint8(4))
	f.Add(`x="`, `\"`, uint8(7))
	f.Add(`["`, `"]`, uint8(8))
	f.Fuzz(func(t *testing.T, prefix, suffix string, kind uint8) {
		// A known secret, set off by blanks, survives no surrounding text.
		var secret, in string
		switch kind % 9 {
		case 0:
			secret = "fuzz-secret-value-123"
			in = prefix + secret + suffix
		case 1:
			secret = "ghp_" + strings.Repeat("Zq9", 8)
			in = prefix + " " + secret + " " + suffix
		case 2:
			secret = "sk-" + strings.Repeat("Fz7", 8)
			in = prefix + " " + secret + " " + suffix
		case 3:
			secret = "pw-Fz7-Qq1-secret"
			in = prefix + " postgres://app:" + secret + "@db:5432 " + suffix
		case 4:
			secret = awsExample
			in = prefix + " " + secret + " " + suffix
		case 5:
			secret = "eyJhbGciOiJ.eyJzdWIiOiJ.c2lnbmF0dXJl"
			in = prefix + " " + secret + " " + suffix
		case 6:
			secret = "0123456789abcdef0123456789abcdef"
			in = prefix + " https://" + secret + "@o1.ingest.sentry.io/2 " + suffix
		case 7: // a quoted value, blanks and commas in it
			secret = "correct horse, battery"
			in = prefix + ` {"password": "` + secret + `"} ` + suffix
		case 8: // a list of them
			secret = "tok-in-a-list-0001"
			in = prefix + ` {"tokens": ["abcd", "` + secret + `"]} ` + suffix
		}
		out := String(in)
		if strings.Contains(out, secret) && !strings.Contains(prefix+suffix, secret) {
			t.Fatalf("secret %q survived in %q", secret, out)
		}
		if again := String(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
		if plain := String(prefix); strings.Contains(plain, "fuzz-secret-value-123") {
			t.Fatalf("registered secret survived: %q", plain)
		}
	})
}

func BenchmarkStringClean1KiB(b *testing.B) {
	s := strings.Repeat("plain tool output line without credentials\n", 24)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = String(s)
	}
}

func BenchmarkStringSecretLike1KiB(b *testing.B) {
	s := strings.Repeat("the api_key field and token count are here\n", 24)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = String(s)
	}
}

// Source code and logs: separators, URLs, identifiers, but no secrets.
func BenchmarkStringCodeLike1KiB(b *testing.B) {
	s := strings.Repeat("if err := c.Do(ctx, \"https://api.example.com/v1\"); err != nil { return x == y }\n", 13)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = String(s)
	}
}
