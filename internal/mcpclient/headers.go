package mcpclient

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// setRequestHeaders mirrors a request's method and target into the
// Streamable HTTP headers MCP 2026-07-28 requires on every POST
// ("Standard Request Headers"): Mcp-Method always, Mcp-Name for the
// methods that name a tool, resource or prompt. Legacy servers ignore them.
//
// params, when not nil, names a tool's x-mcp-header parameters, which a
// tools/call mirrors as Mcp-Param-<Name> (paramheaders.go).
func setRequestHeaders(h http.Header, msg []byte, params func(tool string) []paramHeader) {
	k, m := classify(msg)
	if m == nil || (k != kindRequest && k != kindNotification) {
		return
	}
	h.Set("Mcp-Method", headerValue(m.Method))
	var p struct {
		Name      *string         `json:"name"`
		URI       *string         `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
	}
	switch m.Method {
	case methodToolsCall, "prompts/get":
		if json.Unmarshal(m.Params, &p) == nil && p.Name != nil {
			h.Set("Mcp-Name", headerValue(*p.Name))
			if params != nil && m.Method == methodToolsCall {
				setParamHeaders(h, params(*p.Name), p.Arguments)
			}
		}
	case methodResourcesRead:
		if json.Unmarshal(m.Params, &p) == nil && p.URI != nil {
			h.Set("Mcp-Name", headerValue(*p.URI))
		}
	case methodTasksGet, methodTasksUpdate, methodTasksCancel:
		// The Tasks extension routes every request of a task by its id.
		var tp struct {
			TaskID *string `json:"taskId"`
		}
		if json.Unmarshal(m.Params, &tp) == nil && tp.TaskID != nil {
			h.Set("Mcp-Name", headerValue(*tp.TaskID))
		}
	}
}

// Base64 sentinel of MCP header values ("Value Encoding").
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// headerValue returns s as it may travel in an HTTP header: as is when it
// is visible ASCII and spaces without leading or trailing whitespace, and
// otherwise (or when it looks like the sentinel itself) as
// =?base64?<std base64 of its UTF-8>?=.
func headerValue(s string) string {
	if plainHeaderSafe(s) && !(strings.HasPrefix(s, sentinelPrefix) && strings.HasSuffix(s, sentinelSuffix)) {
		return s
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelSuffix
}

func plainHeaderSafe(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && (c < 0x21 || c > 0x7e) {
			return false
		}
	}
	return true
}
