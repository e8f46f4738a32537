// Package config resolves odek's layered configuration and enforces the trust
// rules that keep a cloned repository from raising its own privileges.
//
// Layers, lowest to highest priority:
//
//  0. $ODEK_HOME/secrets.env — KEY=VALUE lines that fill in environment
//     variables the real environment lacks. Load never calls os.Setenv: the
//     provided values are returned in Config.Env and consulted by
//     Config.LookupEnv after the real environment.
//  1. $ODEK_HOME/config.json — the operator's global file, fully trusted.
//  2. <Dir>/odek.json — the project file, untrusted (see below).
//  3. ODEK_* environment variables (there is no env layer for limits).
//  4. Command-line flags (Overrides), operator-trusted: they override every
//     other layer, limits included, upwards as well as downwards.
//
// A field a layer does not set is inherited from the layer below; an empty
// string (an ODEK_* variable, or a file value such as "${UNSET}") counts as
// unset, because CI systems often export empty values. tools.enabled is
// taken from the highest layer that sets it; tools.disabled is the union of
// all layers. A --max-* flag of 0 removes that limit.
//
// Endpoint and key (DECISION 10). Base URL: --base-url > ODEK_BASE_URL >
// OPENAI_BASE_URL > global base_url > https://api.openai.com/v1. API key:
// ODEK_API_KEY > OPENAI_API_KEY > global api_key; there is deliberately no
// flag, because a key on the command line leaks into ps. The default model is
// DefaultModel.
//
// Project trust rules (BEHAVIOR 2.4). The project file may not set base_url,
// api_key, system, dangerous, embedding, memory, sessions, skills, web_search,
// telegram, guard, trusted_proxies, maintenance, subagent, profiles or
// tools.enabled: each is ignored with a warning naming the key and the file.
// It may only append to tools.disabled. Its mcp_servers.*.auto_approve is
// stripped with a warning. Its limits may only lower the global ones (a higher
// value is clamped with a warning, 0 re-inherits the global, a limit the global
// lacks may be added), and any price it sets is rejected. Planning may be
// turned off or have its caps lowered, never raised or re-enabled.
// In the project file, ${VAR} never expands a secret-looking name (the
// mcpclient secret-key rule) nor a name provided by secrets.env: such a
// reference becomes "" with a warning, so a repository cannot smuggle the
// operator's credentials into a server URL or argument list.
//
// MCP servers (DECISION 2). A global entry with neither command nor url but
// auto_approve:true is not a wildcard: it is dropped with a warning and
// approves nothing, whatever project server shares its name. When a project server has the same name as a
// real global server, the global one wins and the project entry is ignored
// with a warning: a repository must not replace an operator's command.
//
// Unknown keys are ignored (forward compatible), but a key odek does not know
// produces a warning `unknown key "<key>" in <file>` — a misspelt key is the
// most common config bug. The check covers the top level and the objects odek
// decodes itself (tools, limits, limits.model_prices.<id>, maintenance,
// planning, mcp_servers.<name>); it skips sections carried through for later
// use (subagent, profiles, thinking). Keys beginning with "//" are comments,
// accepted silently in any object with fixed fields, which is how Template
// documents itself; in the name maps mcp_servers and model_prices every key
// is a name.
//
// Invalid JSON, a wrongly typed value, a file over 5 MiB or an unreadable
// file is a setup error (exit 3); a missing file is not.
package config
