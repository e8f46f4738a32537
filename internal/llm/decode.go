package llm

import (
	"bytes"
	"cmp"
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// Response decoding. A stream chunk is decoded once, into go-openai's
// ChatCompletionStreamResponse with the fields its types drop decoded
// beside them in the same pass: each wire type below embeds go-openai's and
// adds (or, for a nested object, shadows with an extension of go-openai's)
// only what it drops:
//   - choices[].delta.reasoning: the name Ollama, OpenRouter and vLLM give
//     what DeepSeek and go-openai call reasoning_content;
//   - usage.prompt_tokens_details.cache_creation_tokens, and the
//     Anthropic-style usage.cache_read_input_tokens and
//     cache_creation_input_tokens some gateways send;
//   - usage.cost, the price OpenRouter reports for the call.
//
// A non-streaming body is decoded by go-openai's CreateChatCompletion; the
// body is decoded a second time, into plainExtras, only when it names one of
// those fields (mentionsDropped).

// streamChunk is one SSE data event.
type streamChunk struct {
	openai.ChatCompletionStreamResponse
	Choices []streamChoice `json:"choices"` // shadows the embedded Choices
	Usage   *wireUsage     `json:"usage"`   // shadows the embedded Usage
}

type streamChoice struct {
	openai.ChatCompletionStreamChoice
	Delta streamDelta `json:"delta"` // shadows the embedded Delta
}

type streamDelta struct {
	openai.ChatCompletionStreamChoiceDelta
	Reasoning string `json:"reasoning"` // dropped by go-openai
}

// wireUsage is go-openai's Usage with the fields it drops.
type wireUsage struct {
	openai.Usage
	PromptTokensDetails      *wirePromptDetails `json:"prompt_tokens_details"` // shadows the embedded one
	CacheReadInputTokens     int64              `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64              `json:"cache_creation_input_tokens"`
	Cost                     *float64           `json:"cost"`
}

type wirePromptDetails struct {
	openai.PromptTokensDetails
	CacheCreationTokens int64 `json:"cache_creation_tokens"`
	CacheWriteTokens    int64 `json:"cache_write_tokens"` // OpenRouter's name for cache creation
}

// plainExtras is the part of a non-streaming body go-openai drops:
// choices[].message.reasoning and the usage fields above.
type plainExtras struct {
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Reasoning string `json:"reasoning"`
		} `json:"message"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// mentionsDropped reports whether a body may carry a field go-openai drops.
func mentionsDropped(body []byte) bool {
	return bytes.Contains(body, []byte(`"reasoning"`)) || bytes.Contains(body, []byte(`cache_`)) ||
		bytes.Contains(body, []byte(`"cost"`))
}

// decodeChunk decodes one stream chunk in a single pass.
func decodeChunk(raw []byte) (*streamChunk, error) {
	var c streamChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// usageOf maps a decoded usage object; nil is "no usage reported".
func usageOf(u *wireUsage) Usage {
	if u == nil {
		return Usage{}
	}
	out := Usage{InputTokens: int64(u.PromptTokens), OutputTokens: int64(u.CompletionTokens), Present: true}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens = int64(d.CachedTokens)
		out.CacheCreationTokens = cmp.Or(d.CacheCreationTokens, d.CacheWriteTokens)
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = int64(d.ReasoningTokens)
	}
	if out.CacheReadTokens == 0 {
		out.CacheReadTokens = u.CacheReadInputTokens
	}
	if out.CacheCreationTokens == 0 {
		out.CacheCreationTokens = u.CacheCreationInputTokens
	}
	if u.Cost != nil && *u.Cost >= 0 {
		out.CostUSD, out.CostReported = *u.Cost, true
	}
	// The OpenAI wire format counts cache reads and writes inside
	// prompt_tokens (OpenAI, xAI, DeepSeek and OpenRouter document it);
	// Usage keeps them apart, so they are taken out here, or the budget and
	// the cost would count them twice. Cache counts over the prompt count can
	// only come from an endpoint that counts them apart already (Anthropic's
	// own convention, passed through by some proxies): prompt_tokens is then
	// the uncached part as it is.
	if cached := out.CacheReadTokens + out.CacheCreationTokens; cached > 0 && cached <= out.InputTokens {
		out.InputTokens -= cached
	}
	return out
}

// plainUsage is the usage of a non-streaming reply: go-openai's, with the
// dropped fields from extras when the body had them. go-openai's Usage is a
// value, so without extras a usage with no token counts reads as absent.
func plainUsage(u openai.Usage, extras *wireUsage) Usage {
	if extras != nil {
		return usageOf(extras)
	}
	if u.PromptTokens == 0 && u.CompletionTokens == 0 && u.TotalTokens == 0 {
		return Usage{}
	}
	w := &wireUsage{Usage: u}
	if u.PromptTokensDetails != nil {
		w.PromptTokensDetails = &wirePromptDetails{PromptTokensDetails: *u.PromptTokensDetails}
	}
	return usageOf(w)
}
