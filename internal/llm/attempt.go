package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/odek-run/odek/internal/liveness"
)

// attempt makes one call: timeouts armed, exchange observed, the typed
// error (or the response) out.
func (c *Client) attempt(ctx context.Context, p prepared, req Request) (*Response, error) {
	actx, dog, stop := startAttempt(ctx, c.timeouts)
	defer stop()
	ex := &exchange{keepBody: !c.stream, dog: dog}
	api := c.apiFor(ex)
	var resp *Response
	var err error
	switch {
	case c.wire == WireResponses && c.stream:
		resp, err = c.responsesStreamOnce(actx, api, ex, p.resp)
	case c.wire == WireResponses:
		resp, err = c.responsesPlainOnce(actx, api, ex, p.resp)
	case c.stream:
		resp, err = c.streamOnce(actx, api, ex, p.chat)
	default:
		resp, err = c.plainOnce(actx, api, ex, p.chat)
	}
	if err == nil {
		return resp, nil
	}
	if te := timeoutOf(actx); te != nil && ctx.Err() == nil {
		return nil, te
	}
	return nil, c.describe(err, req)
}

// streamOnce is one streaming attempt. Timing starts before the request is
// sent; the first token is the first chunk carrying text, reasoning or a
// tool-call piece (role-only and empty deltas do not count).
func (c *Client) streamOnce(ctx context.Context, api *openai.Client, ex *exchange, oreq openai.ChatCompletionRequest) (*Response, error) {
	start := c.now()
	stream, err := api.CreateChatCompletionStream(ctx, oreq)
	if err != nil {
		return nil, c.classify(ex, err)
	}
	defer stream.Close()

	var (
		a      assembler
		first  time.Time
		tokens int
	)
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, c.classifyStream(ex, err)
		}
		token, err := a.add(raw)
		if err != nil {
			// Retried like a dropped stream: a proxy that cut a line is the
			// usual cause.
			return nil, &MalformedResponseError{What: "SSE chunk", Transient: true,
				Err: fmt.Errorf("%v (data: %q)", err, capString(string(raw), 120))}
		}
		liveness.Touch(ctx) // a data chunk: progress (a keep-alive comment never gets here)
		if token {
			tokens++
			if first.IsZero() {
				first = c.now()
			}
		}
	}
	end := c.now()

	switch {
	case a.chunks == 0:
		_, _, _, ctype, _ := ex.snapshot()
		hint := "is base_url an OpenAI-compatible /v1 endpoint?"
		if ctype != "" && !strings.HasPrefix(ctype, "text/event-stream") {
			hint = fmt.Sprintf("Content-Type %q: if the server does not stream, set stream to false", ctype)
		}
		return nil, &MalformedResponseError{What: "SSE stream", Err: fmt.Errorf("no data events (%s)", hint)}
	case a.finish == "":
		// Whether or not [DONE] came, no choice said it was finished.
		return nil, &NetworkError{MidStream: true, Err: errors.New("stream ended before any finish_reason")}
	}
	resp := &Response{
		Message:      a.message(),
		Usage:        usageOf(a.usage),
		FinishReason: a.finish,
		ServedModel:  a.model,
		Timing:       Timing{Total: end.Sub(start), TokenChunks: tokens},
	}
	if !first.IsZero() {
		resp.Timing.TimeToFirstToken = first.Sub(start)
		resp.Timing.Generation = end.Sub(first)
	}
	return resp, nil
}

// plainOnce is one non-streaming attempt. Its timing has no time to first
// token and no generation window.
func (c *Client) plainOnce(ctx context.Context, api *openai.Client, ex *exchange, oreq openai.ChatCompletionRequest) (*Response, error) {
	start := c.now()
	out, err := api.CreateChatCompletion(ctx, oreq)
	if err != nil {
		return nil, c.classify(ex, err)
	}
	liveness.Touch(ctx) // the whole answer at once: the only sign of progress without streaming
	end := c.now()

	body := ex.kept()
	var x plainExtras
	if mentionsDropped(body) {
		_ = json.Unmarshal(body, &x) // go-openai parsed it already: only the dropped fields are read
	}
	var choice *openai.ChatCompletionChoice
	var reasoning string
	for i := range out.Choices {
		if out.Choices[i].Index == 0 {
			choice = &out.Choices[i]
			if i < len(x.Choices) {
				reasoning = x.Choices[i].Message.Reasoning
			}
			break
		}
	}
	if choice == nil {
		var e openai.ErrorResponse
		if json.Unmarshal(body, &e) == nil && e.Error != nil && e.Error.Message != "" {
			return nil, providerError(e.Error.Message, codeText(e.Error.Code))
		}
		return nil, &MalformedResponseError{What: "response JSON", Err: errors.New("no choices")}
	}
	msg := choice.Message
	return &Response{
		Message: Message{
			Role:             RoleAssistant,
			Content:          msg.Content + msg.Refusal,
			ReasoningContent: msg.ReasoningContent + reasoning,
			ToolCalls:        fromOpenAIToolCalls(msg.ToolCalls),
		},
		Usage:        plainUsage(out.Usage, x.Usage),
		FinishReason: string(choice.FinishReason),
		ServedModel:  out.Model,
		Timing:       Timing{Total: end.Sub(start)},
	}, nil
}

// classify turns an error from go-openai's request phase (connect, status,
// and for non-streaming calls the body) into odek's typed errors.
func (c *Client) classify(ex *exchange, err error) error {
	sent, status, retryAfter, _, bodyErr := ex.snapshot()
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode >= 400:
		return c.statusError(apiErr.HTTPStatusCode, apiErr.Message, codeText(apiErr.Code), "", retryAfter)
	case errors.As(err, &reqErr) && reqErr.HTTPStatusCode >= 400:
		return c.statusError(reqErr.HTTPStatusCode, "", "", string(reqErr.Body), retryAfter)
	case errors.Is(err, errBodyTooLarge):
		return &MalformedResponseError{What: "response", Err: errBodyTooLarge}
	case status >= 400: // the error body could not be read
		return c.statusError(status, "", "", "", retryAfter)
	case !sent:
		return &RequestError{Err: err}
	case bodyErr != nil:
		return &NetworkError{MidStream: true, Err: bodyErr}
	case status >= 200 && status < 300: // a 2xx body go-openai could not decode
		body := ex.kept()
		return &MalformedResponseError{What: "response JSON", Transient: isCutJSON(body),
			Err: fmt.Errorf("%w (body: %q)", err, capString(string(body), 120))}
	}
	return &NetworkError{Err: err}
}

// classifyStream turns an error met while reading a 200 stream into odek's
// typed errors.
func (c *Client) classifyStream(ex *exchange, err error) error {
	var apiErr *openai.APIError
	switch {
	case errors.As(err, &apiErr): // go-openai: a "data: {"error":…}" line
		return providerError(apiErr.Message, codeText(apiErr.Code))
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return &MalformedResponseError{What: "SSE stream", Err: errors.New("too many consecutive lines without a data: field")}
	case errors.Is(err, errBodyTooLarge):
		return &MalformedResponseError{What: "response", Err: errBodyTooLarge}
	}
	return &NetworkError{MidStream: true, Err: err}
}

// describe gives errors that need the request to explain them their detail:
// which tool's schema broke the request, which URL and model a 404 was for.
func (c *Client) describe(err error, req Request) error {
	var re *RequestError
	if errors.As(err, &re) {
		if name := invalidToolSchema(req.Tools); name != "" {
			return &RequestError{Err: fmt.Errorf("tool %q: parameters are not valid JSON", name)}
		}
	}
	var se *StatusError
	if errors.As(err, &se) && c.wire == WireResponses && noResponsesAPI(se) {
		return &WireError{Endpoint: c.endpoint, Status: se.Status, Body: se.Body}
	}
	if errors.As(err, &se) && se.Status == 404 {
		se.Endpoint, se.Model = c.endpoint, req.Model
	}
	return err
}

// isCutJSON reports a body that began as a JSON object but did not end as
// one: a response cut short, worth another attempt. Anything else (an HTML
// page) is a wrong endpoint that a retry does not fix.
func isCutJSON(body []byte) bool {
	s := strings.TrimSpace(string(body))
	return strings.HasPrefix(s, "{") && !json.Valid([]byte(s))
}

func codeText(code any) string {
	if code == nil {
		return ""
	}
	return fmt.Sprint(code)
}
