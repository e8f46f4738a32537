package redact

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	Register("s3cr3t-literal-value", "short")
	tests := []struct{ in, want string }{
		{"nothing here", "nothing here"},
		{"key sk-proj-abcdefghijklmnopqrstuv in text", "key [REDACTED] in text"},
		{"Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer [REDACTED]"},
		{"curl -H 'authorization: basic dXNlcjpwYXNz'", "curl -H 'authorization: basic [REDACTED]'"},
		{`{"api_key": "hunter2hunter2"}`, `{"api_key": "[REDACTED]"}`},
		{"PASSWORD=correcthorse", "PASSWORD=[REDACTED]"},
		{"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", "GITHUB_TOKEN=[REDACTED]"},
		{"aws AKIAABCDEFGHIJKLMNOP", "aws [REDACTED]"},
		{"uses s3cr3t-literal-value here", "uses [REDACTED] here"},
		{"a short word", "a short word"},
		{"x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\ny", "x\n[REDACTED]\ny"},
		{"tokens: 12", "tokens: 12"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzString(f *testing.F) {
	Register("fuzz-secret-value-123")
	f.Add("token=abcdefgh fuzz-secret-value-123")
	f.Add("Bearer xxxxxxxxxxxx")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if strings.Contains(out, "fuzz-secret-value-123") {
			t.Fatalf("registered secret survived: %q", out)
		}
		if String(out) != out {
			t.Fatalf("not idempotent: %q -> %q", out, String(out))
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
