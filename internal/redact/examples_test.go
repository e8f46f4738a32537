package redact

import (
	"strings"
	"testing"
)

func TestExamplesAreMasked(t *testing.T) {
	t.Parallel()
	for _, e := range Examples() {
		if !strings.Contains(e.Text, e.Secret) {
			t.Errorf("%s: the text %q does not hold the secret %q", e.Name, e.Text, e.Secret)
		}
		if got := String(e.Text); strings.Contains(got, e.Secret) {
			t.Errorf("%s: String(%q) = %q keeps the secret", e.Name, e.Text, got)
		}
		// Alone, inside a sentence and on its own line of a longer text.
		for _, in := range []string{"see " + e.Text + " here", "a\n" + e.Text + "\nb"} {
			if got := String(in); strings.Contains(got, e.Secret) {
				t.Errorf("%s: String(%q) = %q keeps the secret", e.Name, in, got)
			}
		}
	}
}

// Every shape String knows has an example: each provider key prefix, each
// Authorization scheme, the private key block, URLs, labelled values and
// bare AWS keys. A new pattern without an example fails here.
func TestExamplesCoverEveryShape(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for _, e := range Examples() {
		all.WriteString(e.Text + "\n")
	}
	text := all.String()
	for _, p := range tokenPrefixes {
		if !strings.Contains(text, p) {
			t.Errorf("no example of the token prefix %q", p)
		}
	}
	for _, w := range []string{"Bearer ", "Basic ", "PRIVATE KEY-----", "://", "TOKEN=", `"password":`, `\"client_secret\"`} {
		if !strings.Contains(text, w) {
			t.Errorf("no example of %q", w)
		}
	}
	found := false
	for _, e := range Examples() {
		found = found || maskAWSSecrets(e.Text) == Mask
	}
	if !found {
		t.Error("no example of a bare AWS secret key")
	}
}

func TestField(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, value, want string }{
		{"password", "hunter2hunter2", Mask},
		{"token", "abcd", Mask},
		{"api_key", "x-1234567", Mask},
		{"Authorization", "Bearer abcdefgh", Mask},
		{"token", "abc", "abc"},       // too short to be a credential
		{"token", "Bearer", "Bearer"}, // the scheme word alone
		{"token", Mask, Mask},         // already masked
		{"text", "hunter2hunter2", "hunter2hunter2"},
		{"author", "Ada Lovelace", "Ada Lovelace"},
		{"", "hunter2hunter2", "hunter2hunter2"},
	} {
		if got := Field(tt.name, tt.value); got != tt.want {
			t.Errorf("Field(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
	if !IsSecretField("sort_key") || IsSecretField("author") {
		t.Error("IsSecretField: want KEY in, AUTHOR out")
	}
}
