package agentrun

import "testing"

func TestGenAIProvider(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://api.openai.com/v1":                               "openai",
		"https://API.Anthropic.com/v1/":                           "anthropic",
		"https://myres.openai.azure.com/openai/v1":                "azure.ai.openai",
		"https://generativelanguage.googleapis.com/v1beta/openai": "gcp.gemini",
		"https://openrouter.ai/api/v1":                            "",
		"http://127.0.0.1:8080/v1":                                "",
		"https://notopenai.com/v1":                                "",
		"://bad":                                                  "",
	} {
		if got := genAIProvider(in); got != want {
			t.Errorf("genAIProvider(%q) = %q, want %q", in, got, want)
		}
	}
}
