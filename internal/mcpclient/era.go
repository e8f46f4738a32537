package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Era is which generation of MCP a server speaks (MCP 2026-07-28,
// "Versioning and Compatibility"): legacy revisions open with an initialize
// handshake, modern ones carry version and capabilities in every request's
// _meta and have no session.
type Era string

// The two eras.
const (
	EraLegacy Era = "legacy"
	EraModern Era = "modern"
)

// ModernProtocolVersion is the stateless revision odek speaks.
const ModernProtocolVersion = "2026-07-28"

// modernVersions are the stateless revisions odek speaks, newest first.
var modernVersions = []string{ModernProtocolVersion}

// JSON-RPC error codes the 2026-07-28 revision defines; any of them in an
// answer marks the server as modern (it must not be probed into the legacy
// handshake).
const (
	codeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	codeUnsupportedProtocolVersion = -32022
)

// Bounds of what the eras add.
const (
	maxSupportedVersionsQuoted      = 16        // versions quoted in one error
	maxVersionLen                   = 64        // runes of one quoted version
	defaultDiscoverBytes            = 256 << 10 // a DiscoverResult, whatever max_response_bytes says
	errUnknownResultTypeMessageSize = 64        // runes of an unknown resultType quoted
)

// Wire names.
const (
	metaProtocolVersion           = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities        = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo                = "io.modelcontextprotocol/clientInfo"
	metaProgressToken             = "progressToken"
	resultTypeComplete            = "complete"
	resultTypeInputRequired       = "input_required"
	resultTypeTask                = "task"
	methodDiscover                = "server/discover"
	methodInitialize              = "initialize"
	methodInitializedNotification = "notifications/initialized"
	methodProgressNotification    = "notifications/progress"
	methodResourcesRead           = "resources/read"
	methodToolsCall               = "tools/call"
	methodToolsList               = "tools/list"
	methodElicitationCreate       = "elicitation/create"
	capabilityElicitation         = "elicitation"
	capabilityResources           = "resources"
	capabilityExtensions          = "extensions"
	methodTasksGet                = "tasks/get"
	methodTasksUpdate             = "tasks/update"
	methodTasksCancel             = "tasks/cancel"
	// extensionTasks is the MCP Tasks extension: a tools/call may be
	// answered with a task that odek polls.
	extensionTasks = "io.modelcontextprotocol/tasks"
	// extensionOAuthClientCredentials is machine login with the OAuth
	// client credentials grant.
	extensionOAuthClientCredentials = "io.modelcontextprotocol/oauth-client-credentials"
)

// isModernCode reports whether code is one only a modern server sends.
func isModernCode(code int64) bool {
	return code == codeHeaderMismatch || code == CodeMissingClientCapability || code == codeUnsupportedProtocolVersion
}

// discoverInfo is what odek keeps of a DiscoverResult.
type discoverInfo struct {
	Supported    []string
	Capabilities map[string]json.RawMessage
	ServerName   string
	ServerVer    string
}

// parseDiscover decodes a server/discover result. It is strict about what
// odek relies on (supportedVersions is a non-empty list of short strings,
// capabilities an object when present) and ignores everything else.
func parseDiscover(raw []byte) (*discoverInfo, error) {
	var res struct {
		ResultType        string                     `json:"resultType"`
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		ServerInfo        struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("malformed server/discover result: %w", err)
	}
	if res.ResultType != "" && res.ResultType != resultTypeComplete {
		return nil, fmt.Errorf("server/discover result has resultType %q, want %q", clip(res.ResultType, errUnknownResultTypeMessageSize), resultTypeComplete)
	}
	if len(res.SupportedVersions) == 0 {
		return nil, errors.New("server/discover result lists no supportedVersions")
	}
	return &discoverInfo{Supported: res.SupportedVersions, Capabilities: res.Capabilities,
		ServerName: clip(res.ServerInfo.Name, 128), ServerVer: clip(res.ServerInfo.Version, 64)}, nil
}

// chooseVersion picks the revision odek will speak from a server's list:
// the newest modern one both sides know, else a legacy one (spoken through
// initialize; legacyPreference decides which), else none.
func chooseVersion(supported []string) (string, Era, bool) {
	for _, v := range modernVersions {
		if slices.Contains(supported, v) {
			return v, EraModern, true
		}
	}
	for _, v := range legacyPreference {
		if slices.Contains(supported, v) {
			return v, EraLegacy, true
		}
	}
	return "", "", false
}

// legacyPreference lists the legacy revisions odek asks for, in order: the
// one odek has always asked for first (docs/MCP.md), then the others it
// accepts, newest first.
var legacyPreference = []string{ProtocolVersion, "2025-11-25", "2025-06-18", "2024-11-05"}

// quoteVersions renders a server's version list for an error message,
// bounded and one-lined.
func quoteVersions(vs []string) string {
	var parts []string
	for i, v := range vs {
		if i == maxSupportedVersionsQuoted {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%q", clip(v, maxVersionLen)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// odekVersions names every revision odek speaks, for error messages.
func odekVersions() string {
	return strings.Join(append(slices.Clone(modernVersions), legacyPreference...), ", ")
}

// unsupportedData is the data member of UnsupportedProtocolVersionError.
type unsupportedData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// parseUnsupported reads the supported list from a -32022 error's data;
// nil when absent or malformed.
func parseUnsupported(data json.RawMessage) []string {
	if len(data) == 0 {
		return nil
	}
	var d unsupportedData
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	return d.Supported
}

// clientCapabilities are what odek declares, in either era (modern
// requests' _meta, the legacy initialize): elicitation (form mode) exactly
// when something can answer a request for input (answersInput); the Tasks extension once a modern server
// advertised it (odek polls tasks); the OAuth client credentials extension
// when odek logs in with it. {"form": {}} is the 2025-11-25 spelling,
// which earlier revisions' servers accept as the plain {} (TypeScript SDK
// 1.x requires form, go-sdk takes either).
func (c *Client) clientCapabilities() map[string]any {
	caps := map[string]any{}
	if c.answersInput() {
		caps[capabilityElicitation] = map[string]any{"form": map[string]any{}}
	}
	ext := map[string]any{}
	if c.serverExtension(extensionTasks) {
		ext[extensionTasks] = map[string]any{}
	}
	if c.cfg.OAuth != nil && c.http != nil {
		ext[extensionOAuthClientCredentials] = map[string]any{}
	}
	if len(ext) > 0 {
		caps[capabilityExtensions] = ext
	}
	return caps
}

// serverExtension reports whether a modern server advertised extension id
// in its DiscoverResult's capabilities.extensions.
func (c *Client) serverExtension(id string) bool {
	s := c.state.Load()
	if s == nil || s.era != EraModern {
		return false
	}
	var ext map[string]json.RawMessage
	if json.Unmarshal(s.caps[capabilityExtensions], &ext) != nil {
		return false
	}
	_, ok := ext[id]
	return ok
}

// requestMeta is the _meta every modern request carries.
func (c *Client) requestMeta() map[string]any {
	return map[string]any{
		metaProtocolVersion:    c.protocolVersion(),
		metaClientCapabilities: c.clientCapabilities(),
		metaClientInfo:         clientInfo{Name: "odek", Version: c.opts.Version},
	}
}

// withMeta returns params with the modern _meta merged in when the server
// is modern; legacy params go out as they are.
func (c *Client) withMeta(params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	if c.Era() != EraModern {
		return params
	}
	meta := c.requestMeta()
	if extra, ok := params["_meta"].(map[string]any); ok {
		for k, v := range extra {
			meta[k] = v
		}
	}
	params["_meta"] = meta
	return params
}

// answersInput reports whether odek can answer a request for input:
// mcp_servers.<s>.elicitation holds values, or a person is there to ask.
func (c *Client) answersInput() bool {
	return len(c.cfg.Elicitation) > 0 || c.opts.Elicit != nil
}
