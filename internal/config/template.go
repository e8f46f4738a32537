package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// globalTemplate and projectTemplate document themselves with "//" keys,
// which Load accepts silently. Both load with no warnings (tested).
const globalTemplate = `{
  "//": [
    "odek global config: trusted, read at every start; the project file odek.json cannot override its trust-relevant keys.",
    "Keys starting with // are comments. \"${VAR}\" in a string expands an environment variable (\"$$\" is a literal $).",
    "Prefer ODEK_API_KEY / OPENAI_API_KEY or secrets.env beside this file to an api_key here."
  ],
  "model": "gpt-4o-mini",
  "base_url": "https://api.openai.com/v1",
  "max_iterations": 90,
  "max_tool_parallel": 4,
  "stream": true,
  "tools": { "disabled": [] },
  "limits": {
    "//": "0 means no limit. Prices are USD per million tokens; max_cost_usd needs them.",
    "max_runtime_seconds": 0,
    "max_tool_calls": 0,
    "max_input_tokens": 0,
    "max_output_tokens": 0,
    "max_cost_usd": 0,
    "input_cost_per_million_usd": 0,
    "output_cost_per_million_usd": 0,
    "model_prices": {}
  },
  "mcp_servers": {},
  "maintenance": { "artifacts_max_age_hours": 24 }
}
`

const projectTemplate = `{
  "//": [
    "odek project config: untrusted, because it travels with the repository.",
    "It cannot set base_url, api_key, system, maintenance, subagent, profiles or tools.enabled;",
    "it may only add to tools.disabled and lower limits; prices and auto_approve are rejected;",
    "its MCP servers run only after the operator approves them. Keys starting with // are comments."
  ],
  "tools": { "disabled": [] },
  "limits": {},
  "mcp_servers": {}
}
`

// Template returns the commented starting file for `odek init`: the global
// config.json when global is true, else a project odek.json.
func Template(global bool) []byte {
	if global {
		return []byte(globalTemplate)
	}
	return []byte(projectTemplate)
}

// WriteTemplate writes Template(global) to path with mode 0600, creating a
// global file's parent directory with mode 0700. It refuses to replace an
// existing file unless force is set, and never writes through a symlink,
// even with force: a planted link must not redirect the write.
func WriteTemplate(path string, global, force bool) error {
	if global {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC | oNoFollow
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		flags |= os.O_EXCL
	case err != nil:
		return fmt.Errorf("init: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("init: %s is a symlink; refusing to write through it", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("init: %s exists and is not a regular file", path)
	case !force:
		return fmt.Errorf("init: %s already exists (use --force to overwrite it)", path)
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	// An overwritten file keeps its old mode; the template may later hold secrets.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(Template(global)); err != nil {
		f.Close()
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	return nil
}
