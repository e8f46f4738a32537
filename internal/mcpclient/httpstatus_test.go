package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// A non-2xx JSON-RPC error is the answer to a request only when it is a
// response to that very request; anything else stays an *hTTPStatusError
// (kept for era detection), and only -32022 carries a version list.
func TestStatusErrorDeliversOnlyItsOwnResponse(t *testing.T) {
	const errObj = `"error":{"code":-32022,"message":"m","data":{"supported":["2099-01-01"]}}`
	tests := []struct {
		name      string
		body      string
		id        int64
		delivered bool
		supported []string
	}{
		{"its own response", `{"jsonrpc":"2.0","id":5,` + errObj + `}`, 5, true, nil},
		{"another request's", `{"jsonrpc":"2.0","id":6,` + errObj + `}`, 5, false, []string{"2099-01-01"}},
		{"a request with an error member", `{"jsonrpc":"2.0","id":5,"method":"x",` + errObj + `}`, 5, false, []string{"2099-01-01"}},
		{"id 0 to a notification's POST", `{"jsonrpc":"2.0","id":0,` + errObj + `}`, 0, false, []string{"2099-01-01"}},
		{"another code's data", `{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"m","data":{"supported":["2099-01-01"]}}}`, 5, false, nil},
	}
	for _, tt := range tests {
		tr := &httpTransport{in: make(chan inMsg, 1)}
		resp := &http.Response{StatusCode: 400, Body: io.NopCloser(strings.NewReader(tt.body))}
		err := tr.statusError(context.Background(), resp, tt.id)
		delivered := len(tr.in) == 1
		if delivered != tt.delivered || (err == nil) != tt.delivered {
			t.Errorf("%s: delivered %v, err %v; want delivered %v", tt.name, delivered, err, tt.delivered)
			continue
		}
		var he *hTTPStatusError
		if !tt.delivered && (!errors.As(err, &he) || he.RPCCode == nil || !slices.Equal(he.Supported, tt.supported)) {
			t.Errorf("%s: %#v, want an hTTPStatusError with its code and supported %v", tt.name, err, tt.supported)
		}
	}
}

// A legacy server's session is the first Mcp-Session-Id it hands out; a
// later one does not replace it, and a modern (stateless) transport keeps
// none.
func TestHTTPSessionIsTheFirstOneGiven(t *testing.T) {
	for _, modern := range []bool{false, true} {
		var sent []string
		n := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sent = append(sent, r.Header.Get("Mcp-Session-Id"))
			n++
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", n))
			w.WriteHeader(http.StatusAccepted)
		}))
		tr, _, err := newHTTPTransport("web", ServerConfig{URL: srv.URL}, newReadLimit(4096), Options{HTTPClient: srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		if modern {
			tr.setModern("2026-07-28")
		}
		for range 3 {
			if err := tr.post(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), 0); err != nil {
				t.Fatal(err)
			}
		}
		srv.Close()
		want := []string{"", "s1", "s1"}
		if modern {
			want = []string{"", "", ""}
		}
		if !slices.Equal(sent, want) || (modern && tr.session != "") {
			t.Errorf("modern %v: sessions sent %q (kept %q), want %q", modern, sent, tr.session, want)
		}
	}
}

// A DiscoverResult past its own 256 KiB bound names that bound when
// max_response_bytes allows more; when max_response_bytes is no larger,
// it is that limit the answer broke.
func TestDiscoverResultBound(t *testing.T) {
	pad := strings.Repeat("x", defaultDiscoverBytes)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"pad":%q}}`, pad)
	}))
	defer srv.Close()
	for _, maxResp := range []int64{defaultDiscoverBytes, 4 * defaultDiscoverBytes} {
		c, err := Connect(context.Background(), "web", ServerConfig{URL: srv.URL, MaxResponseBytes: maxResp}, Options{HTTPClient: srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Discover(context.Background())
		_ = c.Close()
		var dl *discoveryLimitError
		var tl *ResponseTooLargeError
		named := errors.As(err, &dl) && dl.Bound == boundDiscoverBytes
		if want := maxResp > defaultDiscoverBytes; named != want || (!want && !errors.As(err, &tl)) {
			t.Errorf("max_response_bytes %d: err = %v", maxResp, err)
		}
	}
}
