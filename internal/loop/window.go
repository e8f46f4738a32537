package loop

import "strings"

// knownWindows are context sizes in tokens of well-known hosted models,
// matched by the longest prefix of the model id (after any "provider/"
// qualifier). Local servers are left out on purpose: Ollama and friends run
// a model with a context far smaller than the model's own (num_ctx), so for
// them the operator sets context_window.
var knownWindows = []struct {
	prefix string
	tokens int
}{
	{"gpt-5", 400000},
	{"gpt-4.1", 1047576},
	{"gpt-4o", 128000},
	{"gpt-4-turbo", 128000},
	{"gpt-4-32k", 32768},
	{"gpt-4", 8192},
	{"gpt-3.5-turbo", 16385},
	{"o1-mini", 128000},
	{"o1", 200000},
	{"o3", 200000},
	{"o4-mini", 200000},
	{"chatgpt-4o", 128000},
	{"claude-", 200000},
	{"deepseek-chat", 65536},
	{"deepseek-reasoner", 65536},
	{"gemini-1.5-pro", 2097152},
	{"gemini-1.5-flash", 1048576},
	{"gemini-2", 1048576},
	{"mistral-large", 131072},
	{"grok-", 131072},
}

// KnownContextWindow is the context size of a well-known model, 0 when the
// model is not known.
func KnownContextWindow(model string) int {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	model = strings.ToLower(model)
	best, size := 0, 0
	for _, k := range knownWindows {
		if strings.HasPrefix(model, k.prefix) && len(k.prefix) > best {
			best, size = len(k.prefix), k.tokens
		}
	}
	return size
}
