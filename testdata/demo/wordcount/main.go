// Command wordcount is the offline demo's MCP server: newline-delimited
// JSON-RPC 2.0 over stdio with one tool, word_count. It is deliberately tiny
// and dependency-free, to show what a minimal compatible server needs.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

var tool = map[string]any{
	"name":        "word_count",
	"description": "Count the words, lines and characters of a text.",
	"inputSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"text": map[string]any{"type": "string"}},
		"required":   []string{"text"},
	},
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := json.NewEncoder(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var m message
			if json.Unmarshal(line, &m) == nil && m.ID != nil && m.Method != "" {
				_ = out.Encode(answer(m))
			}
		}
		if err != nil {
			return
		}
	}
}

func answer(m message) message {
	r := message{JSONRPC: "2.0", ID: m.ID}
	switch m.Method {
	case "initialize":
		r.Result = map[string]any{
			"protocolVersion": "2025-03-26",
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "wordcount", "version": "1.0.0"},
		}
	case "tools/list":
		r.Result = map[string]any{"tools": []any{tool}}
	case "tools/call":
		var p struct {
			Arguments struct{ Text string } `json:"arguments"`
		}
		_ = json.Unmarshal(m.Params, &p)
		t := p.Arguments.Text
		text := fmt.Sprintf("words: %d, lines: %d, characters: %d", len(strings.Fields(t)), strings.Count(t, "\n")+1, len([]rune(t)))
		r.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	case "ping":
		r.Result = map[string]any{}
	default:
		r.Error = map[string]any{"code": -32601, "message": "method not found: " + m.Method}
	}
	return r
}
