// Command gopeer is a small MCP server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). odek's interop tests spawn it as a
// peer that nobody on the odek team wrote the protocol code for.
//
// It serves over stdio by default. With -http ADDR it serves Streamable HTTP
// on ADDR (use 127.0.0.1:0 for a free port) and prints the endpoint URL as the
// first line on stdout, so a test can find it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type sizeArgs struct {
	N int `json:"n" jsonschema:"number of bytes of text to return"`
}

type sleepArgs struct {
	MS int `json:"ms" jsonschema:"milliseconds to wait before answering"`
}

type exitArgs struct {
	Code int `json:"code" jsonschema:"exit status"`
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

// weather is a structured result: the SDK derives the tool's outputSchema
// from it and sends it as structuredContent.
type weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
	Sky   string  `json:"sky"`
}

type confirmArgs struct {
	Env string `json:"env" jsonschema:"where to deploy"`
}

type failArgs struct {
	Message string `json:"message" jsonschema:"error text to return"`
}

// text builds a plain text result; Out is any, so no structured output is sent.
func text(s string) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil, nil
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "odek-gopeer", Version: "v0.0.1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone by name."},
		func(_ context.Context, _ *mcp.CallToolRequest, a greetArgs) (*mcp.CallToolResult, any, error) {
			return text("Hello, " + a.Name + "!")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprintf("%d + %d = %d", a.A, a.B, a.A+a.B))
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns n bytes of text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a sizeArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", a.N))
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Waits, then answers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a sleepArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
				return text(fmt.Sprintf("slept %dms", a.MS))
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always returns an error result."},
		func(_ context.Context, _ *mcp.CallToolRequest, a failArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New(a.Message)
		})
	// env exposes exactly what the client let through, so tests can check secret stripping.
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Lists this process's environment."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text(strings.Join(os.Environ(), "\n"))
		})
	// exit dies mid-call, so tests see how the client reports a vanished server.
	mcp.AddTool(s, &mcp.Tool{Name: "exit", Description: "Exits the server process."},
		func(_ context.Context, _ *mcp.CallToolRequest, a exitArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "gopeer: exiting with status %d on request\n", a.Code)
			os.Exit(a.Code)
			return nil, nil, nil
		})
	// weather returns data only (no text content), with behaviour hints.
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: "Current weather in a city, as data.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a weatherArgs) (*mcp.CallToolResult, weather, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, weather{City: a.City, TempC: 21.5, Sky: "clear"}, nil
		})
	// confirm asks the client through elicitation/create, which the SDK
	// refuses to send to a client that declared no elicitation capability.
	mcp.AddTool(s, &mcp.Tool{Name: "confirm", Description: "Deploys after the user confirms."},
		func(ctx context.Context, req *mcp.CallToolRequest, a confirmArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Deploy to " + a.Env + "?",
				RequestedSchema: map[string]any{"type": "object", "required": []string{"confirm"},
					"properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}}})
			if err != nil {
				return nil, nil, err
			}
			if res.Action == "accept" && res.Content["confirm"] == true {
				return text("deployed to " + a.Env)
			}
			return text("not deployed (" + res.Action + ")")
		})
	// pid lets a test check that Close really ended this process.
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns this process's id."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid()))
		})
	return s
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: serve without sessions (StreamableHTTPOptions.Stateless)")
	flag.Parse()
	if *addr == "" {
		if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := newServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: *stateless})
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}
