package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sync"

	"github.com/odek-run/odek/internal/telemetry"
)

// post runs an http hook: the event's JSON POSTed to its URL. A 2xx answer
// with an empty body is a hook that exited 0 and printed nothing; one with
// a JSON object is its stdout; anything else (another status, another
// body, no connection) is a non-blocking error. An http hook cannot exit
// 2: it blocks with a JSON decision.
func (r *Runner) post(ctx context.Context, e entry, body []byte) outcome {
	tctx, cancel := context.WithTimeout(ctx, e.h.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, e.h.URL, bytes.NewReader(body))
	if err != nil {
		return outcome{exit: -1, err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	for _, k := range sortedKeys(e.h.Headers) {
		req.Header.Set(k, r.expandHeader(e, e.h.Headers[k]))
	}
	telemetry.InjectHeaders(ctx, req.Header) // the hook's span: a traced receiver nests under it
	resp, err := r.o.HTTPClient.Do(req)
	if err != nil {
		cause := errors.Unwrap(err) // the url.Error's text repeats the URL, query and all
		if cause == nil {
			cause = err
		}
		o := outcome{exit: -1, err: fmt.Errorf("POST failed: %v", cause)}
		if errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			o.timedOut, o.err = true, fmt.Errorf("no answer within its timeout of %s", e.h.Timeout)
		}
		return o
	}
	defer resp.Body.Close()
	var out capped
	_, _ = io.Copy(&out, resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return outcome{exit: -1, err: fmt.Errorf("HTTP status %d", resp.StatusCode), stderr: out.buf.Bytes()}
	}
	b := bytes.TrimSpace(out.buf.Bytes())
	if len(b) > 0 && b[0] != '{' {
		return outcome{exit: -1, err: errors.New("the response body is neither empty nor a JSON object")}
	}
	return outcome{exit: 0, stdout: b}
}

// headerVar matches $VAR and ${VAR}, compiled on first use (not at init).
var headerVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)
})

// expandHeader fills $VAR and ${VAR} in a header value from the
// environment, for the names the hook's allowedEnvVars lists; any other
// reference becomes "". A project hook's headers expand nothing: the
// repository's URL must not be handed the operator's variables.
func (r *Runner) expandHeader(e entry, v string) string {
	return headerVar().ReplaceAllStringFunc(v, func(ref string) string {
		m := headerVar().FindStringSubmatch(ref)
		name := m[1] + m[2]
		if e.project || r.o.LookupEnv == nil || !slices.Contains(e.h.AllowedEnvVars, name) {
			return ""
		}
		val, _ := r.o.LookupEnv(name)
		return val
	})
}
