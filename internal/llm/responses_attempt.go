package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/odek-run/odek/internal/liveness"
)

// responsesStreamOnce is one streaming attempt on the Responses wire: each
// event is read raw from go-openai's stream and decoded once (responses_decode.go).
func (c *Client) responsesStreamOnce(ctx context.Context, api *openai.Client, ex *exchange, oreq openai.CreateResponseRequest) (*Response, error) {
	start := c.now()
	stream, err := api.CreateResponseStream(ctx, oreq)
	if err != nil {
		return nil, c.classify(ex, err)
	}
	defer stream.Close()

	var (
		a      respAssembler
		first  time.Time
		tokens int
	)
	for !a.ended {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, c.classifyStream(ex, err)
		}
		token, err := a.add(raw)
		var pe *ProviderError
		var ce *ContextLengthError
		if errors.As(err, &pe) || errors.As(err, &ce) {
			return nil, err
		}
		if err != nil {
			return nil, &MalformedResponseError{What: "SSE event", Transient: true,
				Err: fmt.Errorf("%v (data: %q)", err, capString(string(raw), 120))}
		}
		liveness.Touch(ctx) // a data event: progress (a keep-alive comment never gets here)
		if token {
			tokens++
			if first.IsZero() {
				first = c.now()
			}
		}
	}
	end := c.now()

	switch {
	case a.events == 0:
		_, _, _, ctype, _ := ex.snapshot()
		hint := "is base_url an endpoint that serves the Responses API?"
		if ctype != "" && !strings.HasPrefix(ctype, "text/event-stream") {
			hint = fmt.Sprintf("Content-Type %q: if the server does not stream, set stream to false", ctype)
		}
		return nil, &MalformedResponseError{What: "SSE stream", Err: fmt.Errorf("no data events (%s)", hint)}
	case !a.ended:
		return nil, &NetworkError{MidStream: true, Err: errors.New("stream ended before response.completed")}
	}
	resp := &Response{
		Message:      a.message(),
		Usage:        respUsageOf(a.usage),
		FinishReason: a.finish(),
		ServedModel:  a.model,
		Timing:       Timing{Total: end.Sub(start), TokenChunks: tokens},
	}
	if !first.IsZero() {
		resp.Timing.TimeToFirstToken = first.Sub(start)
		resp.Timing.Generation = end.Sub(first)
	}
	return resp, nil
}

// responsesPlainOnce is one non-streaming attempt on the Responses wire.
// go-openai decodes the reply; its output items are read from the kept body
// (go-openai keeps them as []any and drops encrypted_content).
func (c *Client) responsesPlainOnce(ctx context.Context, api *openai.Client, ex *exchange, oreq openai.CreateResponseRequest) (*Response, error) {
	start := c.now()
	out, err := api.CreateResponse(ctx, oreq)
	if err != nil {
		return nil, c.classify(ex, err)
	}
	liveness.Touch(ctx) // the whole answer at once
	end := c.now()
	if out.Error != nil && out.Error.Message != "" {
		return nil, providerError(out.Error.Message, out.Error.Code)
	}
	var body respBody
	if err := json.Unmarshal(ex.kept(), &body); err != nil {
		return nil, &MalformedResponseError{What: "response JSON", Err: err}
	}
	if out.Status == "" && len(body.Output) == 0 {
		return nil, &MalformedResponseError{What: "response JSON", Err: errors.New("no output and no status")}
	}
	var a respAssembler
	if err := a.end(&body); err != nil {
		return nil, err
	}
	return &Response{
		Message:      a.message(),
		Usage:        respUsageOf(body.Usage),
		FinishReason: a.finish(),
		ServedModel:  a.model,
		Timing:       Timing{Total: end.Sub(start)},
	}, nil
}

// noResponsesAPI reports an answer that says the endpoint has no
// /responses: 405, or a 404 that does not name a model (an unknown model is
// a 404 too, and is the model's error).
func noResponsesAPI(se *StatusError) bool {
	switch se.Status {
	case http.StatusMethodNotAllowed:
		return true
	case http.StatusNotFound:
		return !strings.Contains(strings.ToLower(se.Body), "model")
	}
	return false
}
