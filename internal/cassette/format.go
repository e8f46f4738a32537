package cassette

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Format names the cassette format; cassette.json carries it.
const Format = "odek.cassette/v1"

// Size caps. A line (one exchange) over MaxLineBytes or a stream over
// MaxStreamBytes fails the recording with an error naming the cap; the
// reader refuses the same.
const (
	MaxLineBytes   = 32 << 20
	MaxStreamBytes = 128 << 20
)

// MetaFile is the cassette's header file.
const MetaFile = "cassette.json"

// Meta is cassette.json.
type Meta struct {
	Format      string `json:"format"`
	OdekVersion string `json:"odek_version,omitempty"`
	// Roots are the directories of the recording (workdir, odek_home, home);
	// playback normalises each side's paths with its own roots.
	Roots map[string]string `json:"roots,omitempty"`
	// AgentsFiles are the project instructions (AGENTS.md) the recorded
	// run's system prompt carried, in order; a replay names the first that
	// differs (AgentsMismatch).
	AgentsFiles []AgentsFile `json:"agents_files,omitempty"`
}

// AgentsFile is one AGENTS.md file a recording read: its name as the model
// saw it and the SHA-256 of the text it was given.
type AgentsFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// AgentsMismatch says how the files a replay read (now) differ from the
// recording's: the first file added, left out or changed, in order; "" when
// they are the same.
func AgentsMismatch(recorded, now []AgentsFile) string {
	for i := 0; i < len(recorded) || i < len(now); i++ {
		switch {
		case i >= len(now):
			return fmt.Sprintf("%s was read when recording and is not now", recorded[i].Name)
		case i >= len(recorded):
			return fmt.Sprintf("%s is read now and was not when recording", now[i].Name)
		case recorded[i].Name != now[i].Name:
			return fmt.Sprintf("%s is read now where the recording read %s", now[i].Name, recorded[i].Name)
		case recorded[i].SHA256 != now[i].SHA256:
			return fmt.Sprintf("%s changed (sha256 %s, recorded %s)", now[i].Name, short(now[i].SHA256), short(recorded[i].SHA256))
		}
	}
	return ""
}

// short is a digest's first 12 hex digits, enough to tell two apart.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// LLMEntry is one line of an llm stream: a request and what the endpoint
// answered.
type LLMEntry struct {
	Seq int `json:"seq"`
	// Wire is the API the request spoke: WireResponses for one sent to
	// <base>/responses, "" for chat completions (older cassettes too).
	Wire     string          `json:"wire,omitempty"`
	Request  json.RawMessage `json:"request"`
	Response LLMResponse     `json:"response"`
}

// WireResponses is LLMEntry.Wire for the Responses API.
const WireResponses = "responses"

// wireOf is the wire of a request, by its path.
func wireOf(path string) string {
	if strings.HasSuffix(path, "/responses") {
		return WireResponses
	}
	return ""
}

// wireName words a wire for a departure.
func wireName(w string) string {
	if w == "" {
		return "chat"
	}
	return w
}

// LLMResponse is an HTTP answer, or the transport error in its place.
type LLMResponse struct {
	Status      int    `json:"status,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	RetryAfter  string `json:"retry_after,omitempty"`
	// Exactly one of Body (a JSON body), Text (any other body) and Events
	// (an SSE body, one string per event without its blank line) is set,
	// or Error for a request that got no response.
	Body   json.RawMessage `json:"body,omitempty"`
	Text   *string         `json:"text,omitempty"`
	Events []string        `json:"events,omitempty"`
	Error  string          `json:"error,omitempty"`
	// Truncated: the body ended early (the run stopped reading it).
	Truncated bool `json:"truncated,omitempty"`
}

// MCPEntry is one JSON-RPC message on an MCP stream, in the order the
// client saw it: "send" from odek, "recv" from the server.
type MCPEntry struct {
	Seq int             `json:"seq"`
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

// Message directions of MCPEntry.Dir.
const (
	DirSend = "send"
	DirRecv = "recv"
)

// ToolEntry is one call of a recorded built-in tool and its outcome.
type ToolEntry struct {
	Seq    int             `json:"seq"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Result string          `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// checkStream refuses a stream name that could not be part of a file name:
// 1-128 of [A-Za-z0-9_.-], starting with a letter or digit.
func checkStream(name string) error {
	ok := len(name) >= 1 && len(name) <= 128
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		ok = alnum || i > 0 && (c == '_' || c == '.' || c == '-')
	}
	if !ok {
		return fmt.Errorf("cassette: stream name %q: want 1-128 of [A-Za-z0-9_.-], starting with a letter or digit", name)
	}
	return nil
}

// checkServer refuses an MCP server name that the config would not
// accept either (1-64 of [A-Za-z0-9_-]): its stream is mcp-<name>.jsonl,
// so the name needs no other rule to stay inside the cassette, and
// without a dot it cannot pass for a sub-agent's stream.
func checkServer(name string) error {
	ok := len(name) >= 1 && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("cassette: MCP server name %q: want 1-64 of [A-Za-z0-9_-]", name)
	}
	return nil
}

// File names of the streams. prefix is "" for the top-level run and a
// sub-agent's stream name ("sub-3f2a…-1") for its own: llm-<prefix>.jsonl,
// mcp-<prefix>.<server>.jsonl, tool-<prefix>.<tool>.jsonl.
func llmFile(prefix string) string {
	if prefix == "" {
		return "llm.jsonl"
	}
	return "llm-" + prefix + ".jsonl"
}

func mcpFile(prefix, server string) string { return "mcp-" + dotted(prefix, server) + ".jsonl" }
func toolFile(prefix, tool string) string  { return "tool-" + dotted(prefix, tool) + ".jsonl" }

func dotted(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
