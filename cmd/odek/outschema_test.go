package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// formatModel fails every request that carries a response format with err.
type formatModel struct {
	err  error
	reqs []llm.Request
}

func (m *formatModel) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.reqs = append(m.reqs, req)
	if req.ResponseFormat != nil && m.err != nil {
		return nil, m.err
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "ok"}}, nil
}

func TestFormatFallback(t *testing.T) {
	rf := &llm.ResponseFormat{Name: "v", Schema: json.RawMessage(`{}`)}
	rejected := &llm.StatusError{Status: 400, Body: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}
	tests := []struct {
		name     string
		err      error
		wantReqs int // per Complete call, over two calls
		wantErr  bool
		warned   int
	}{
		{"400 naming it: dropped for good", rejected, 3, false, 1},
		{"400 naming it after retries", &llm.RetryError{Attempts: 1, Err: rejected}, 3, false, 1},
		{"400 about something else", &llm.StatusError{Status: 400, Body: "messages: too many"}, 2, true, 0},
		{"500 naming it", &llm.StatusError{Status: 500, Body: "response_format handler crashed"}, 2, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &formatModel{err: tt.err}
			var warns []string
			f := &formatFallback{model: m, warn: func(s string) { warns = append(warns, s) }}
			for range 2 {
				_, err := f.Complete(context.Background(), llm.Request{Model: "m", ResponseFormat: rf})
				if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, tt.err)) {
					t.Fatalf("err = %v", err)
				}
			}
			if len(m.reqs) != tt.wantReqs || len(warns) != tt.warned {
				t.Fatalf("%d requests, warnings %q", len(m.reqs), warns)
			}
			if tt.warned > 0 && (m.reqs[0].ResponseFormat == nil || m.reqs[1].ResponseFormat != nil || m.reqs[2].ResponseFormat != nil) {
				t.Fatalf("formats sent: %v %v %v", m.reqs[0].ResponseFormat, m.reqs[1].ResponseFormat, m.reqs[2].ResponseFormat)
			}
		})
	}
	// A request without a format is never repeated.
	m := &formatModel{err: rejected}
	f := &formatFallback{model: m, warn: func(string) { t.Fatal("warned") }}
	if _, err := f.Complete(context.Background(), llm.Request{}); err != nil || len(m.reqs) != 1 {
		t.Fatalf("%v, %d requests", err, len(m.reqs))
	}
}
