package llm

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// An Ollama reasoning chunk: the kind the old decoder read twice (once into
// go-openai's type, once more for "reasoning").
var ollamaChunk = []byte(`{"id":"chatcmpl-531","object":"chat.completion.chunk","created":1764000000,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Let me think about"},"finish_reason":null}]}`)

// BenchmarkChunkDecode is the single pass decodeChunk does.
func BenchmarkChunkDecode(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		c, err := decodeChunk(ollamaChunk)
		if err != nil || c.Choices[0].Delta.Reasoning == "" {
			b.Fatal(err)
		}
	}
}

// BenchmarkChunkDecodeTwice is what the decoder did before: go-openai's type,
// then a second pass for the dropped field.
func BenchmarkChunkDecodeTwice(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		var c openai.ChatCompletionStreamResponse
		var x struct {
			Choices []struct {
				Delta struct {
					Reasoning string `json:"reasoning"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal(ollamaChunk, &c) != nil || json.Unmarshal(ollamaChunk, &x) != nil || x.Choices[0].Delta.Reasoning == "" {
			b.Fatal("decode")
		}
	}
}
