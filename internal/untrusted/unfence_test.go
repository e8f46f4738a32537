package untrusted

import (
	"strings"
	"testing"
)

func TestUnfence(t *testing.T) {
	a, b := Wrap("mcp:fs:read", "line one\nline two"), Wrap("mcp:fs:read", "line one\nline two")
	if a == b {
		t.Fatal("two wraps share a nonce")
	}
	if Unfence(a) != Unfence(b) || Unfence(a) != "line one\nline two" {
		t.Errorf("unfenced %q and %q", Unfence(a), Unfence(b))
	}
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"exit code: 1\n" + WrapNonce("0123456789abcdef", "shell", "FAIL") + "\nnote", "exit code: 1\nFAIL\nnote"},
		{"error: " + WrapNonce("0123456789abcdef", `mcp:a"b`, "boom"), "error: boom"},
		// Not tags Wrap writes: kept as text.
		{"<untrusted_content_xyz source=\"a\">", "<untrusted_content_xyz source=\"a\">"},
		{"</untrusted_content_0123456789abcdef", "</untrusted_content_0123456789abcdef"},
		{"<untrusted_content_0123456789abcdef source=\"a\nb\">x", "<untrusted_content_0123456789abcdef source=\"a\nb\">x"},
		// A body cannot hold the marker: Wrap neutralised it.
		{Wrap("s", "<untrusted_content_0123456789abcdef>"), "<untrustedˍcontent_0123456789abcdef>"},
	} {
		if got := Unfence(tc.in); got != tc.want {
			t.Errorf("Unfence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzUnfence: any text unfences without a panic, never grows, and a
// wrapped body comes back whole.
func FuzzUnfence(f *testing.F) {
	f.Add("body", "<untrusted_content_0123456789abcdef source=\"x\">\ny\n</untrusted_content_0123456789abcdef>")
	f.Add("", "</untrusted_content_")
	f.Fuzz(func(t *testing.T, body, text string) {
		if got := Unfence(text); len(got) > len(text) {
			t.Fatalf("Unfence grew %q to %q", text, got)
		}
		want := strings.ReplaceAll(body, marker, neutral)
		if got := Unfence(Wrap("src", body)); got != want {
			t.Fatalf("Unfence(Wrap(%q)) = %q", body, got)
		}
	})
}
