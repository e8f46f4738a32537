// Command conformance-client drives odek's MCP client for the optional
// @modelcontextprotocol/conformance suite (see run.sh beside it). The suite
// starts a scenario server, runs this program with the server's URL as the
// last argument and the scenario name in MCP_CONFORMANCE_SCENARIO, and judges
// what reached the wire. It is not part of `go test`.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client <server-url>")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	err := run(ctx, os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO"))
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-client:", err)
		os.Exit(1)
	}
}

// run connects, lists tools and, for tools_call, calls each of them; tool
// error results are fine (the scenario judges the requests, not the answers).
func run(ctx context.Context, url, scenario string) error {
	c, err := mcpclient.Connect(ctx, "conformance", mcpclient.ServerConfig{URL: url}, mcpclient.Options{Stderr: os.Stderr})
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.Discover(ctx)
	if err != nil {
		return err
	}
	if scenario != "tools_call" {
		return nil
	}
	for _, t := range tools {
		out, err := c.CallTool(ctx, t.Name, sampleArgs(t.InputSchema))
		fmt.Fprintf(os.Stderr, "%s: %q err=%v\n", t.Name, out, err)
	}
	return nil
}

// sampleArgs fills every required property with a value of its declared type.
func sampleArgs(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "number", "integer":
			args[name] = 1
		case "boolean":
			args[name] = true
		default:
			args[name] = "test"
		}
	}
	b, _ := json.Marshal(args)
	return string(b)
}
