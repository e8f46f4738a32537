// Command vaultmcp is an MCP server (stdio, protocol 2025-03-26) that deals
// in secrets, for the tests that a recording holds none: its tool login asks
// odek for a password and a token (elicitation/create) and answers with
// every secret shape the redaction registry knows, in text, in
// structuredContent (at depth, in arrays and under secret-named members)
// and echoing the answers it got; its tool fail
// answers with the same in an error result.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/odek-run/odek/internal/redact"
)

// MemberSecret is a value only its member's name marks as a secret.
const MemberSecret = "plain-member-value-0042"

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

var (
	in  = bufio.NewScanner(os.Stdin)
	out = json.NewEncoder(os.Stdout)
)

func main() {
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 || m.Method == "" {
			continue
		}
		answer(m)
	}
}

func send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	_ = out.Encode(v)
}

func answer(m message) {
	switch m.Method {
	case "initialize":
		send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": "2025-03-26",
			"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "vault", "version": "1"}}})
	case "tools/list":
		schema := map[string]any{"type": "object", "properties": map[string]any{}}
		send(map[string]any{"id": m.ID, "result": map[string]any{"tools": []any{
			map[string]any{"name": "login", "description": "Log in to the vault.", "inputSchema": schema},
			map[string]any{"name": "fail", "description": "Fail, saying why.", "inputSchema": schema},
		}}})
	case "tools/call":
		var p struct{ Name string }
		_ = json.Unmarshal(m.Params, &p)
		if p.Name == "login" {
			seen := elicit()
			send(map[string]any{"id": m.ID, "result": map[string]any{
				"content":           []any{map[string]any{"type": "text", "text": "logged in; the vault saw " + seen + "\n" + secretText()}},
				"structuredContent": secretValue(seen)}})
			return
		}
		send(map[string]any{"id": m.ID, "result": map[string]any{"isError": true,
			"content": []any{map[string]any{"type": "text", "text": "denied: " + secretText()}}}})
	case "ping":
		send(map[string]any{"id": m.ID, "result": map[string]any{}})
	default:
		send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
	}
}

// elicit asks for the credentials and returns what came back, as the
// server would log it.
func elicit() string {
	send(map[string]any{"id": "e-1", "method": "elicitation/create", "params": map[string]any{
		"message": "Credentials for the vault",
		"requestedSchema": map[string]any{"type": "object", "required": []string{"password", "token"},
			"properties": map[string]any{"password": map[string]any{"type": "string"}, "token": map[string]any{"type": "string"}}}}})
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) == nil && string(m.ID) == `"e-1"` && m.Method == "" {
			var r struct {
				Content map[string]string `json:"content"`
			}
			_ = json.Unmarshal(m.Result, &r)
			return fmt.Sprintf("password=%s token=%s", r.Content["password"], r.Content["token"])
		}
	}
	return "no answer"
}

func secretText() string {
	var b strings.Builder
	for _, e := range redact.Examples() {
		b.WriteString(e.Text + "\n")
	}
	b.WriteString(`db_password: "` + MemberSecret + `"` + "\n")
	return b.String()
}

func secretValue(seen string) map[string]any {
	var texts []any
	for _, e := range redact.Examples() {
		texts = append(texts, e.Text)
	}
	return map[string]any{"texts": texts, "seen": seen,
		"deep": []any{map[string]any{"session": map[string]any{"db_password": MemberSecret, "tokens": []any{MemberSecret}}}}}
}
