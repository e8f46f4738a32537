// Package config resolves odek's layered configuration and enforces the trust
// rules that keep a cloned repository from raising its own privileges.
//
// One table (table.go) defines every setting: its key, type, default,
// environment variable, `odek run` flag, trust rule, help text and whether
// odek reads it yet. The table drives decoding and unknown-key warnings, the
// layering, the trust rules, the generated flags, the `odek init` templates
// and docs/CONFIG.md, which documents every rule below in full.
//
// Layers, lowest to highest priority:
//
//  0. $ODEK_HOME/secrets.env — KEY=VALUE lines that fill in environment
//     variables the real environment lacks. Load never calls os.Setenv: the
//     provided values are returned in Config.Env and consulted by
//     Config.LookupEnv after the real environment.
//  1. $ODEK_HOME/config.json — the operator's global file, fully trusted.
//  2. odek.json — the project file, untrusted: the nearest one from Dir up
//     to the repository root (the nearest directory with a .git entry).
//  3. The settings' environment variables.
//  4. Overrides from the command line, operator-trusted: they beat every
//     other layer, limits included, upwards as well as downwards.
//
// A layer that does not set a key inherits it; an empty string counts as
// unset. Endpoint and key follow DECISION 10: the api_key has no flag,
// because a key on the command line leaks into ps.
//
// The project file's values pass the setting's Trust rule (docs/CONFIG.md):
// global-only values are ignored with a warning, limit-like values may only
// be lowered, policies only tightened, and prices and auto_approve are
// rejected. In the project file, ${VAR} expands only the names the operator
// lists in project_env_allow, and never a secret-looking name, a name
// secrets.env provides or a value that looks secret. shell.env_passthrough
// may only be narrowed by the project file.
//
// MCP servers (DECISION 2). A global entry with neither command nor url but
// auto_approve:true is not a wildcard: it is dropped with a warning and
// approves nothing. A project server never replaces a global server of the
// same name.
//
// Keys are case-exact, map keys (server names, model ids, env names) are
// kept exactly as written (DECISION 13), and a key odek does not know, or a
// setting it does not read yet, draws a warning rather than being silently
// accepted. Invalid JSON or a wrongly typed value is a *ParseError with the
// file, line and column; every error matches ErrSetup (exit 3).
package config
