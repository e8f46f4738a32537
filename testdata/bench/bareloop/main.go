// Command bareloop is the floor for odek's speed figures: the least a Go
// agent loop does, written plainly with the standard library. It reads
// $ODEK_HOME/config.json, spawns the first MCP server there, initializes it
// and lists its tools over stdio, then sends streamed chat completions
// offering those tools to $ODEK_BASE_URL/chat/completions: each tool call
// the model asks for goes to the MCP server (tools/call) and its result
// back into the history, until the model answers without one. No
// approvals, budgets, events, redaction, trimming or trust rules: what odek
// adds on top of this is its overhead (cmd/odek BenchmarkFirstRequest and
// BenchmarkSpeedGoals).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type config struct {
	MCPServers map[string]struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	} `json:"mcp_servers"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bareloop:", err)
		os.Exit(1)
	}
}

func run() error {
	raw, err := os.ReadFile(filepath.Join(os.Getenv("ODEK_HOME"), "config.json"))
	if err != nil {
		return err
	}
	var cfg config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return err
	}
	for name, s := range cfg.MCPServers {
		srv, tools, err := listTools(s.Command, s.Args)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer srv.close()
		return loop(srv, name, tools)
	}
	return fmt.Errorf("no mcp_servers in the config")
}

// server is an MCP server over stdio.
type server struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	in    *bufio.Reader
	id    int
}

func (s *server) close() { _ = s.stdin.Close(); _ = s.cmd.Wait() }

func (s *server) call(method string, params any) (json.RawMessage, error) {
	s.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		return nil, err
	}
	line, err := s.in.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	return resp.Result, json.Unmarshal(line, &resp)
}

// listTools spawns the server, initializes it and returns its tools.
func listTools(command string, args []string) (*server, []json.RawMessage, error) {
	cmd := exec.Command(command, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	s := &server{cmd: cmd, stdin: stdin, in: bufio.NewReader(stdout)}
	if _, err := s.call("initialize", map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bareloop", "version": "0"}}); err != nil {
		s.close()
		return nil, nil, err
	}
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		s.close()
		return nil, nil, err
	}
	res, err := s.call("tools/list", map[string]any{})
	if err != nil {
		s.close()
		return nil, nil, err
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	return s, list.Tools, json.Unmarshal(res, &list)
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// loop sends the history with the listed tools until the model answers
// without a tool call.
func loop(srv *server, name string, tools []json.RawMessage) error {
	var specs []any
	for _, raw := range tools {
		var t struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return err
		}
		specs = append(specs, map[string]any{"type": "function", "function": map[string]any{
			"name": name + "__" + t.Name, "description": t.Description, "parameters": t.InputSchema}})
	}
	history := []any{map[string]any{"role": "user", "content": "task"}}
	for {
		calls, err := complete(specs, history)
		if err != nil || len(calls) == 0 {
			return err
		}
		history = append(history, map[string]any{"role": "assistant", "tool_calls": calls})
		for _, c := range calls {
			var args any
			if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
				return err
			}
			res, err := srv.call("tools/call", map[string]any{"name": strings.TrimPrefix(c.Function.Name, name+"__"), "arguments": args})
			if err != nil {
				return err
			}
			history = append(history, map[string]any{"role": "tool", "tool_call_id": c.ID, "content": string(res)})
		}
	}
}

// complete sends one request and returns the tool calls of the streamed reply.
func complete(specs, history []any) ([]toolCall, error) {
	body, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "tools": specs, "messages": history})
	resp, err := http.Post(os.Getenv("ODEK_BASE_URL")+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var calls []toolCall
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Index int `json:"index"`
						toolCall
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return nil, err
		}
		for _, ch := range chunk.Choices {
			for _, d := range ch.Delta.ToolCalls {
				for len(calls) <= d.Index {
					calls = append(calls, toolCall{Type: "function"})
				}
				c := &calls[d.Index]
				if d.ID != "" {
					c.ID = d.ID
				}
				c.Function.Name += d.Function.Name
				c.Function.Arguments += d.Function.Arguments
			}
		}
	}
	return calls, sc.Err()
}
