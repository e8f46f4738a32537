package agentrun

import "testing"

func TestProviderOfDropsCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.openai.com/v1":                 "https://api.openai.com/v1",
		"https://user:secret@proxy.test/v1?key=abc": "https://proxy.test/v1",
		"http://localhost:11434/v1#frag":            "http://localhost:11434/v1",
		"://bad":                                    "",
	} {
		if got := providerOf(in); got != want {
			t.Errorf("providerOf(%q) = %q, want %q", in, got, want)
		}
	}
}
