package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/artifact"
)

// maxRPCMessage caps a JSON-RPC error message quoted in our error text.
const maxRPCMessage = 512

// callResult is a tool result ready for the model.
type callResult struct {
	// Text is the rendered result wrapped as untrusted content.
	Text string
	// ArtifactCount is the number of "- artifact " metadata lines in Text.
	ArtifactCount int
	// Truncated reports that max_result_chars cut the result.
	Truncated bool
}

type callResultWire struct {
	ResultType        string                     `json:"resultType"`
	Content           []artifact.Content         `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
	InputRequests     map[string]json.RawMessage `json:"inputRequests"`
	RequestState      *string                    `json:"requestState"`
	// raw is the whole result, for a resultType (task) of another shape.
	raw json.RawMessage
}

// maxInputRounds bounds how often one call may come back input_required
// before odek gives up on it.
const maxInputRounds = 3

// CallTool invokes a tool with JSON arguments and returns the wrapped result text.
func (c *Client) CallTool(ctx context.Context, name string, argsJSON string) (string, error) {
	r, err := c.callToolResult(ctx, name, json.RawMessage(argsJSON))
	if err != nil {
		return "", err
	}
	return r.Text, nil
}

// callToolResult invokes a tool and has internal/artifact render its result
// for the model (text, structured content, content summaries, validated
// artifact refs, max_result_chars, the untrusted wrapper). A result that
// asks for input (MCP 2026-07-28 input_required) is answered from the
// operator's configured values or declined.
//
// timeout_seconds is the deadline of the whole call, every input_required
// round included, whatever progress the server reports; with
// idle_timeout_seconds set, a round that hears nothing (no progress, no
// answer) for that long fails sooner.
func (c *Client) callToolResult(ctx context.Context, name string, args json.RawMessage) (*callResult, error) {
	op := "tool " + name
	if !c.opened.Load() {
		return nil, newError(c.name, op, classSetup, errNotDiscovered)
	}
	key, done := c.calls.start(c.name, name)
	defer done()
	left := c.requestTimeout(ctx) // what the caller's deadline leaves, for its error
	call, cancel := context.WithTimeout(ctx, c.lim.timeout)
	defer cancel()
	if _, err := c.ready(call, ""); err != nil {
		return nil, c.callFailure(ctx, call, op, left, err)
	}
	if why := c.restart.refused(name); why != "" {
		return nil, newError(c.name, op, classMCP, fmt.Errorf("not called: %s", why))
	}
	params := map[string]any{"name": name, "arguments": normalizeArgs(args)}
	replayed := false
	for round := 0; ; round++ {
		gen := c.generation()
		res, err := c.callOnce(call, op, params)
		if err != nil {
			again, rerr := c.retry(call, gen, name, err, &replayed)
			if again {
				round--
				continue
			}
			return nil, c.callFailure(ctx, call, op, left, rerr)
		}
		switch res.ResultType {
		case "", resultTypeComplete:
			return c.render(name, res)
		case resultTypeTask:
			return c.awaitTask(ctx, call, key, name, left, res)
		case resultTypeInputRequired:
			if round+1 >= maxInputRounds {
				return nil, newError(c.name, op, classMCP, fmt.Errorf("still asked for input after %d rounds; gave up", maxInputRounds))
			}
			if params, err = c.answerInput(call, name, res, params); err != nil {
				return nil, newError(c.name, op, classMCP, err)
			}
		default:
			return nil, newError(c.name, op, classMCP, fmt.Errorf("unknown resultType %q", clip(res.ResultType, errUnknownResultTypeMessageSize)))
		}
	}
}

// retry decides whether a failed round is sent again: after an HTTP
// session the server forgot (it never ran the request) once the session
// is renewed, or once after the connection broke mid-call when the tool
// may run twice (replayable) and the server could be reached again. It
// returns the error to report otherwise.
func (c *Client) retry(call context.Context, gen int, tool string, err error, replayed *bool) (bool, error) {
	switch {
	case call.Err() != nil:
		return false, err
	case errors.Is(err, errSessionLost):
		if _, rerr := c.restartFrom(call, gen, err, ""); rerr != nil {
			return false, rerr
		}
		return true, nil
	case *replayed || !brokenDuringCall(err) || !c.replayable(tool):
		return false, err
	}
	if _, rerr := c.ready(call, tool); rerr != nil {
		return false, err
	}
	*replayed = true
	return true, nil
}

// callOnce sends one round of a call and decodes its result.
func (c *Client) callOnce(ctx context.Context, op string, params map[string]any) (*callResultWire, error) {
	raw, err := c.callWithProgress(ctx, params["name"].(string), params)
	if err != nil {
		return nil, err
	}
	var res callResultWire
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, newError(c.name, op, classMCP, fmt.Errorf("malformed tools/call result: %w", err))
	}
	res.raw = raw
	return &res, nil
}

// callFailure words why a call failed: the caller's context ended (its
// deadline or a cancel), the idle deadline passed, the call's own
// timeout_seconds did, or the connection failed. An *Error from the server
// (a JSON-RPC error, a malformed result) is returned as it is.
func (c *Client) callFailure(caller, call context.Context, op string, left time.Duration, err error) error {
	switch {
	case errors.As(err, new(*opError)):
		return err
	case caller.Err() != nil:
		return c.failure(op, left, err)
	case errors.Is(err, errIdleTimeout):
		return newError(c.name, op, classDeadline, &timeoutError{Timeout: c.lim.idle, Bound: boundIdle})
	case call.Err() != nil:
		return newError(c.name, op, classDeadline, &timeoutError{Timeout: c.lim.timeout})
	}
	return c.failure(op, c.lim.timeout, err)
}

// render checks structured content against the tool's outputSchema and
// renders the result for the model.
func (c *Client) render(name string, res *callResultWire) (*callResult, error) {
	op := "tool " + name
	o := artifact.ResultOptions{Server: c.name, Tool: name, Roots: c.cfg.ArtifactRoots, MaxChars: c.lim.maxChars, Store: c.opts.Store}
	if c.opts.project {
		o.Within = c.opts.dir
		if o.Within == "" {
			o.Roots = nil // no project directory known: no root holds
		}
	}
	if res.IsError {
		return nil, newError(c.name, op+" returned error", classMCP, &ToolError{Text: artifact.RenderError(res.Content, o)})
	}
	if err := c.checkStructured(name, res.StructuredContent); err != nil {
		return nil, newError(c.name, op, classMCP, err)
	}
	for _, it := range res.Content {
		if it.Type == "resource_link" {
			c.links.add(it.URI)
		}
	}
	items := withStructured(res.Content, res.StructuredContent)
	r, err := artifact.RenderResult(items, o)
	if err != nil {
		return nil, newError(c.name, op, classMCP, err)
	}
	return &callResult{Text: r.Text, ArtifactCount: r.ArtifactCount, Truncated: r.Truncated}, nil
}

// normalizeArgs sends parsed JSON when it parses; empty or null becomes {},
// anything unparseable is sent as a JSON string of the raw text.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	if json.Valid(t) {
		return json.RawMessage(t)
	}
	s, _ := json.Marshal(strings.ToValidUTF8(string(args), "\uFFFD"))
	return s
}

// clip caps s at n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
