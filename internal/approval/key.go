package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"slices"
	"strconv"

	"github.com/odek-run/odek/internal/mcpclient"
)

// SpawnKey fingerprints what a project-level server will execute:
// hex SHA-256 over dir\0name\0command, \0arg per argument, the env sorted
// and length-prefixed, \0url:, \0token_env:, the three limits, the sorted
// artifact roots and then, per bound project file (BoundFiles), \0file: with
// its path and SHA-256 length-prefixed. Limits enter with defaults and hard
// caps applied, so only changes in behaviour change the key. With no bound
// files the key is what earlier odek versions computed. An
// idle_timeout_seconds that takes effect enters last, so a config without
// one keeps its key. auto_approve, trust_annotations and enabled are trust
// metadata, not execution, and are left out (so is the retired
// max_call_seconds, which odek ignores).
func SpawnKey(dir, name string, cfg mcpclient.ServerConfig, files []FileDigest) string {
	h := sha256.New()
	write := func(s string) { h.Write([]byte(s)) }
	write(dir + "\x00" + name + "\x00" + cfg.Command)
	for _, a := range cfg.Args {
		write("\x00" + a)
	}
	write("\x00env:")
	for _, k := range sortedKeys(cfg.Env) {
		writeLP(h, k)
		writeLP(h, cfg.Env[k])
	}
	timeout, maxResp, maxChars := keyLimits(cfg)
	write("\x00url:" + cfg.URL)
	write("\x00token_env:" + cfg.TokenEnv)
	write("\x00timeout_seconds:" + strconv.Itoa(timeout))
	write("\x00max_response_bytes:" + strconv.FormatInt(maxResp, 10))
	write("\x00max_result_chars:" + strconv.Itoa(maxChars))
	for _, r := range sortedCopy(cfg.ArtifactRoots) {
		write("\x00artifact_root:" + r)
	}
	for _, f := range files {
		write("\x00file:")
		writeLP(h, f.Path)
		writeLP(h, f.SHA256)
	}
	if idle := keyIdle(cfg, timeout); idle > 0 {
		write("\x00idle_timeout_seconds:" + strconv.Itoa(idle))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ToolKey fingerprints one tool of one server: every field is
// length-prefixed (dir, server, tool, command, args, env, url, token_env,
// limits, artifact roots, SHA-256 of the canonical schema, description,
// then the behaviour hints and an idle_timeout_seconds when either says
// more than the defaults), so no two different inputs can produce the
// same byte stream. The hints are in the key because they are what a
// trusting operator's policy reads (trust_annotations): a server that
// marks a tool read-only after its approval is asked about again. A tool
// without hints, on a server without an idle timeout, keeps the key odek
// always computed.
func ToolKey(dir, server string, cfg mcpclient.ServerConfig, tool mcpclient.ToolDef) string {
	h := sha256.New()
	for _, s := range []string{dir, server, tool.Name, cfg.Command} {
		writeLP(h, s)
	}
	writeLP(h, strconv.Itoa(len(cfg.Args)))
	for _, a := range cfg.Args {
		writeLP(h, a)
	}
	writeLP(h, strconv.Itoa(len(cfg.Env)))
	for _, k := range sortedKeys(cfg.Env) {
		writeLP(h, k)
		writeLP(h, cfg.Env[k])
	}
	timeout, maxResp, maxChars := keyLimits(cfg)
	for _, s := range []string{cfg.URL, cfg.TokenEnv, strconv.Itoa(timeout),
		strconv.FormatInt(maxResp, 10), strconv.Itoa(maxChars)} {
		writeLP(h, s)
	}
	roots := sortedCopy(cfg.ArtifactRoots)
	writeLP(h, strconv.Itoa(len(roots)))
	for _, r := range roots {
		writeLP(h, r)
	}
	writeLP(h, SchemaSHA256(tool.InputSchema))
	writeLP(h, tool.Description)
	if hints := keyHints(tool.Annotations); hints != "" {
		writeLP(h, "hints:"+hints)
	}
	if idle := keyIdle(cfg, timeout); idle > 0 {
		writeLP(h, "idle_timeout_seconds:"+strconv.Itoa(idle))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// keyHints is the tool's four behaviour hints as the policy and the
// operator read them, each with MCP's default when the server sent none
// (read-only false, destructive true, idempotent false, open-world true),
// e.g. "readOnly=true,destructive=false,idempotent=false,openWorld=true"; "" when all
// four are the defaults, which is what a tool without hints always meant.
// The title is display only and left out.
func keyHints(a *mcpclient.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	hint := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	vals := []bool{hint(a.ReadOnlyHint, false), hint(a.DestructiveHint, true), hint(a.IdempotentHint, false), hint(a.OpenWorldHint, true)}
	if !vals[0] && vals[1] && !vals[2] && vals[3] {
		return ""
	}
	var b []byte
	for i, name := range []string{"readOnly", "destructive", "idempotent", "openWorld"} {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, name+"="...)
		b = strconv.AppendBool(b, vals[i])
	}
	return string(b)
}

// SchemaSHA256 is the hex SHA-256 of the canonical form of a JSON schema:
// re-encoded with sorted object keys, no insignificant space, and number
// literals kept verbatim. A missing schema hashes as {"type":"object"} (what
// the model is given); a schema that is not JSON hashes as its raw bytes.
func SchemaSHA256(schema json.RawMessage) string {
	sum := sha256.Sum256(canonicalSchema(schema))
	return hex.EncodeToString(sum[:])
}

func canonicalSchema(schema json.RawMessage) []byte {
	if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
		return []byte(`{"type":"object"}`)
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return schema
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return schema
	}
	return b
}

// keyLimits resolves the effective limits the client will enforce.
func keyLimits(cfg mcpclient.ServerConfig) (timeout int, maxResp int64, maxChars int) {
	timeout, maxResp, maxChars = cfg.TimeoutSeconds, cfg.MaxResponseBytes, cfg.MaxResultChars
	if timeout == 0 {
		timeout = int(DefaultTimeoutSeconds)
	}
	timeout = min(timeout, mcpclient.MaxTimeoutSeconds)
	if maxResp == 0 {
		maxResp = mcpclient.DefaultMaxResponseBytes
	}
	if maxChars == 0 {
		maxChars = mcpclient.DefaultMaxResultChars
	}
	maxChars = min(maxChars, mcpclient.MaxResultCharsCap)
	return timeout, maxResp, maxChars
}

// keyIdle is the idle_timeout_seconds the client will enforce: capped,
// and 0 when it is not below the call's timeout (it then has no effect).
func keyIdle(cfg mcpclient.ServerConfig, timeout int) int {
	idle := min(cfg.IdleTimeoutSeconds, mcpclient.MaxTimeoutSeconds)
	if idle <= 0 || idle >= timeout {
		return 0
	}
	return idle
}

// DefaultTimeoutSeconds is the per-request timeout a zero timeout_seconds means,
// as it enters approval keys.
const DefaultTimeoutSeconds = 30

func writeLP(h hash.Hash, s string) {
	h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
