// Command bareloop is the reference for odek's start-up figure: the least a
// Go agent loop does before its first model request, written plainly with
// the standard library. It reads $ODEK_HOME/config.json, spawns the first
// MCP server there, initializes it and lists its tools over stdio, then
// sends one streamed chat completion offering those tools to
// $ODEK_BASE_URL/chat/completions and reads the answer. No approvals,
// budgets, events, redaction or trust rules: what odek adds on top of this
// is its start-up overhead (cmd/odek BenchmarkFirstRequest).
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
		tools, err := listTools(s.Command, s.Args)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return complete(name, tools)
	}
	return fmt.Errorf("no mcp_servers in the config")
}

// listTools spawns the server, initializes it and returns its tools.
func listTools(command string, args []string) ([]json.RawMessage, error) {
	cmd := exec.Command(command, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	in := bufio.NewReader(stdout)
	call := func(id int, method string, params any) (json.RawMessage, error) {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(req, '\n')); err != nil {
			return nil, err
		}
		line, err := in.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		return resp.Result, json.Unmarshal(line, &resp)
	}
	if _, err := call(1, "initialize", map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bareloop", "version": "0"}}); err != nil {
		return nil, err
	}
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		return nil, err
	}
	res, err := call(2, "tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	return list.Tools, json.Unmarshal(res, &list)
}

// complete sends the first request with the listed tools and reads the reply.
func complete(server string, tools []json.RawMessage) error {
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
			"name": server + "__" + t.Name, "description": t.Description, "parameters": t.InputSchema}})
	}
	body, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "tools": specs,
		"messages": []any{map[string]any{"role": "user", "content": "task"}}})
	resp, err := http.Post(os.Getenv("ODEK_BASE_URL")+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
