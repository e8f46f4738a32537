package mcpclient

import (
	"encoding/json"
	"time"

	"github.com/odek-run/odek/internal/artifact"
)

// ProtocolVersion is the MCP protocol revision odek speaks.
const ProtocolVersion = "2025-03-26"

// ExtensionContractVersion identifies the odek extension contract implemented here.
const ExtensionContractVersion = "odek-extension/v1"

// Limits of the odek-extension/v1 contract.
const (
	// MaxResponseBytesCeiling is the absolute ceiling for ServerConfig.MaxResponseBytes;
	// a configured value above it is an error and the server is not started.
	MaxResponseBytesCeiling = 64 << 20
	// DefaultMaxResponseBytes applies when MaxResponseBytes is zero.
	DefaultMaxResponseBytes = 10 << 20
	// MaxTimeoutSeconds is the hard cap for ServerConfig.TimeoutSeconds and
	// IdleTimeoutSeconds (clamped with a warning).
	MaxTimeoutSeconds = 3600
	// DefaultMaxResultChars is the default cap on result text forwarded to the model.
	DefaultMaxResultChars = 200000
	// MaxResultCharsCap is the hard cap for ServerConfig.MaxResultChars (clamped with a warning).
	MaxResultCharsCap = 1000000
	// defaultRestartLimit is how often a server may be restarted in one run
	// when restart_limit is not set.
	defaultRestartLimit = 1
	// maxRestartLimit caps restart_limit (clamped with a warning).
	maxRestartLimit = 10
)

// OAuthConfig is machine login for a Streamable HTTP server (the
// io.modelcontextprotocol/oauth-client-credentials extension): odek finds
// the authorization server the MCP server names (protected resource
// metadata, then authorization server metadata) and gets its access
// tokens with the client credentials grant. Exactly one of the three
// credential fields is set.
type OAuthConfig struct {
	// ClientID is the client registered with the authorization server.
	ClientID string `json:"client_id"`
	// ClientSecretEnv names an environment variable of odek's holding the
	// client secret.
	ClientSecretEnv string `json:"client_secret_env,omitempty"`
	// ClientSecretFile is a file holding the client secret (one line).
	ClientSecretFile string `json:"client_secret_file,omitempty"`
	// PrivateKeyFile is a PEM private key (RSA, ECDSA P-256/384/521 or
	// Ed25519) that signs a JWT client assertion (RFC 7523) instead of a
	// secret.
	PrivateKeyFile string `json:"private_key_file,omitempty"`
	// KeyID, when set, is the assertion's "kid" header.
	KeyID string `json:"key_id,omitempty"`
	// Scope is the scope asked for; "" takes the server's.
	Scope string `json:"scope,omitempty"`
}

// required reports whether a failure to start the server fails Start.
func (c ServerConfig) required() bool { return c.Required == nil || *c.Required }

// Schema names carried in the "schema" field of structured payloads. The
// envelope and ref names are internal/artifact's (which parses and validates
// them), aliased here so the contract has one source of truth.
const (
	// SchemaToolResult names the tool-result envelope an MCP tool may return.
	SchemaToolResult = artifact.SchemaToolResult
	// SchemaArtifactRef names one artifact reference inside an envelope.
	SchemaArtifactRef = artifact.SchemaArtifactRef
	// SchemaEvent names one structured runtime event line.
	SchemaEvent = "odek.event/v1"
)

// DefaultTimeout bounds each MCP request when neither the caller nor the server
// config supplies a deadline. Tests may lower it; config never mutates it.
var DefaultTimeout = 30 * time.Second

// ServerConfig defines one MCP server, as written under mcp_servers in config.
// Unknown JSON fields are ignored (the contract's additive rule).
type ServerConfig struct {
	// Command is the executable to spawn (stdio transport).
	Command string `json:"command,omitempty"`
	// Args are its command-line arguments.
	Args []string `json:"args,omitempty"`
	// Env overrides the allowlisted environment; "" removes a variable.
	// Secret-looking names are dropped even here. No ${VAR} expansion.
	Env map[string]string `json:"env,omitempty"`
	// URL selects the Streamable HTTP transport instead of Command.
	URL string `json:"url,omitempty"`
	// TokenEnv names the environment variable holding a Bearer token for URL.
	TokenEnv string `json:"token_env,omitempty"`
	// TimeoutSeconds is the hard deadline of each request, and of each tool
	// call whole: its input_required rounds included, whatever progress the
	// server reports. 0 = DefaultTimeout, >3600 clamped.
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
	// IdleTimeoutSeconds, when set, fails a tool call early that has heard
	// nothing for that long: no progress notification since the call (or its
	// latest input_required round) was sent. It never extends a call past
	// TimeoutSeconds; a value not below it has no effect (warned). 0 = none,
	// >3600 clamped.
	IdleTimeoutSeconds int `json:"idle_timeout_seconds,omitempty"`
	// MaxCallSeconds is retired: progress no longer extends a call past
	// TimeoutSeconds, so no second bound is needed. It is still read, so
	// that old configs load, and is ignored with a warning that points to
	// TimeoutSeconds (the whole call) and IdleTimeoutSeconds.
	MaxCallSeconds int `json:"max_call_seconds,omitempty"`
	// MaxResponseBytes caps one JSON-RPC response line; 0 = 10 MiB, >64 MiB is an error.
	MaxResponseBytes int64 `json:"max_response_bytes,omitempty"`
	// MaxResultChars caps result text forwarded to the model; 0 = 200000, >1000000 clamped.
	MaxResultChars int `json:"max_result_chars,omitempty"`
	// ArtifactRoots lists directories under which file:// artifact refs are accepted.
	// Empty rejects every ref (fail closed).
	ArtifactRoots []string `json:"artifact_roots,omitempty"`
	// Enabled=false means the server is never started nor prompted for. nil = true.
	Enabled *bool `json:"enabled,omitempty"`
	// Elicitation holds the operator's answers to a server's requests for
	// input (MCP elicitation, form mode): field name → value. With it set,
	// odek declares the elicitation capability and accepts a request whose
	// required fields it all covers; without it every request is declined.
	// Never prompted for: odek does not ask a person mid-run.
	Elicitation map[string]json.RawMessage `json:"elicitation,omitempty"`
	// AutoApprove is honoured only from the operator's global config; the config
	// loader strips it from project files. Never part of approval keys.
	AutoApprove bool `json:"auto_approve,omitempty"`
	// TrustAnnotations lets the server's behaviour hints relax the risk
	// policy: its tools marked readOnlyHint are then safe inspections
	// (ToolAdapter.AssessRisk). Operator config only: the config loader
	// strips it from project files, and Start ignores it on a project
	// server. Not part of approval keys (the hints themselves are).
	TrustAnnotations bool `json:"trust_annotations,omitempty"`
	// Required=false lets a run go on without the server when it fails to
	// start, to open or to list its tools: Start skips it with a warning
	// and a NoticeServerSkipped. nil (the default) or true: such a
	// failure fails Start (exit 3). An approval refused stays fatal.
	Required *bool `json:"required,omitempty"`
	// RestartLimit is how often one run may start the server again after
	// it exited (stdio) or lost its session (HTTP); nil = 1, 0 = never,
	// above maxRestartLimit clamped with a warning.
	RestartLimit *int `json:"restart_limit,omitempty"`
	// OAuth logs odek in to a url server as a machine (the OAuth client
	// credentials extension). Operator config only: the config loader
	// strips it from project files. Not part of approval keys.
	OAuth *OAuthConfig `json:"oauth,omitempty"`
	// Sandbox is how the kernel confines a stdio server: workspace-write,
	// read-only or off. "" is the default of the server's origin: a
	// project file's servers run workspace-write (network on), the global
	// file's run off. A project file can never set off.
	Sandbox string `json:"sandbox,omitempty"`
}
