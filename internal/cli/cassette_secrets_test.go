package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/testbin"
)

// The operator's elicitation answers, as config.json holds them.
const (
	vaultPassword = "correct horse battery staple"
	vaultToken    = "tok-vault-answer-0001"
	vaultMember   = "plain-member-value-0042" // vaultmcp's MemberSecret
)

// vaultScript logs in through vaultmcp (which asks for the answers and
// hands back secrets), makes it fail, runs the shell over a file of secrets
// (once to its end, once into a timeout, whose error carries the output)
// and answers with secrets of its own.
func vaultScript(t *testing.T) string {
	t.Helper()
	var answer strings.Builder
	for _, e := range redact.Examples() {
		answer.WriteString(e.Text + "\n")
	}
	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"tool_calls": []any{map[string]any{"id": id, "name": name, "arguments": args}}}
	}
	turns := []map[string]any{
		call("c1", "vault__login", map[string]any{}),
		call("c2", "vault__fail", map[string]any{}),
		call("c3", "shell", map[string]any{"command": "cat secrets.txt", "description": "show"}),
		call("c4", "shell", map[string]any{"command": "cat secrets.txt; sleep 30", "description": "hang", "timeout": 1}),
		{"content": answer.String()},
	}
	b, err := json.Marshal(map[string]any{"turns": turns})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 34.11: odek run --record writes no secret into any stream of the
// cassette: not the operator's elicitation answers (password, token), not
// a value under a secret-named member, not any shape the redaction registry
// knows, whether the model, the MCP server or the shell carried it. The
// cassette still replays.
func TestRecordWritesNoSecret(t *testing.T) {
	t.Parallel()
	vault := testbin.Build(t, "vaultmcp", "./internal/cli/testdata/vaultmcp")
	c := newFakeCLI(t, vaultScript(t))
	home := c.env["ODEK_HOME"]
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"vault": map[string]any{
		"command": vault, "auto_approve": true,
		"elicitation": map[string]any{"password": vaultPassword, "token": vaultToken}}}})
	writeFile(t, filepath.Join(home, "config.json"), string(cfg))
	var secrets strings.Builder
	for _, e := range redact.Examples() {
		secrets.WriteString(e.Text + "\n")
	}
	secrets.WriteString(`{"db_password": "` + vaultMember + `", "tokens": ["` + vaultMember + `"]}` + "\n")
	writeFile(t, filepath.Join(c.dir, "secrets.txt"), secrets.String())

	cas := filepath.Join(c.dir, "cas")
	c.run("run", "--record", cas, "Log in to the vault").want(t, 0)
	mcp, err := os.ReadFile(filepath.Join(cas, "mcp-vault.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(mcp, []byte(`"action":"accept"`)) {
		t.Fatalf("the server's elicitation was not answered:\n%s", mcp)
	}
	never := []string{vaultPassword, vaultToken, vaultMember}
	for _, e := range redact.Examples() {
		never = append(never, e.Secret)
	}
	files, err := os.ReadDir(cas)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 { // cassette.json, llm, mcp-vault, tool-shell
		t.Errorf("cassette files %v, want 4", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(cas, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range never {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", f.Name(), s)
			}
		}
	}

	delete(c.env, "ODEK_BASE_URL")
	c.env["ODEK_BASE_URL"] = "http://127.0.0.1:9"
	c.run("run", "--replay", cas, "Log in to the vault").want(t, 0)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
