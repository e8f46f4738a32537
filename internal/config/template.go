package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The templates' header comments. Keys starting with "//" are comments,
// accepted silently in any object with fixed fields.
var (
	globalHeader = []string{
		"odek global config: trusted, read at every start; the project file odek.json cannot override its trust-relevant keys.",
		"Keys starting with // are comments. \"${VAR}\" in a string expands an environment variable (\"$$\" is a literal $).",
		"Prefer ODEK_API_KEY / OPENAI_API_KEY or secrets.env beside this file to an api_key here.",
		"Every setting, its default, variable and flag: docs/CONFIG.md.",
	}
	projectHeader = []string{
		"odek project config: untrusted, because it travels with the repository; it may hold no secrets.",
		"It cannot set base_url, api_key, system, maintenance, subagent, profiles or tools.enabled;",
		"it may only add to tools.disabled and lower limits; prices and auto_approve are rejected;",
		"its MCP servers run only after the operator approves them. Keys starting with // are comments.",
	}
	// sectionNotes are the comments a template puts at the top of a section.
	sectionNotes = map[uint8]map[string]string{
		inGlobalTemplate: {
			"limits": "0 means no limit. Prices are USD per million tokens; max_cost_usd needs them for the run's model.",
		},
		inProjectTemplate: {
			"limits": "A project file may only lower the global limits; 0 inherits them.",
		},
	}
)

// exampleServer is the commented MCP server of the project template.
func exampleServer() *tmplNode {
	srv := &tmplNode{}
	srv.add("command", "node")
	srv.add("args", []string{"./tools/mcp-server.js"})
	srv.add("env", map[string]string{"LOG_LEVEL": "info"})
	srv.add("timeout_seconds", 60)
	n := &tmplNode{}
	n.add("repo-tools", srv)
	return n
}

// Template returns the commented starting file for `odek init`: the global
// config.json when global is true, else a project odek.json. It is built
// from the settings table and loads without warnings.
func Template(global bool) []byte {
	mask, header := inProjectTemplate, projectHeader
	if global {
		mask, header = inGlobalTemplate, globalHeader
	}
	root := &tmplNode{}
	root.add("//", header)
	for i := range table {
		s := &table[i]
		if s.template&mask == 0 {
			continue
		}
		section, _, nested := strings.Cut(s.Key, ".")
		if note := sectionNotes[mask][section]; nested && note != "" {
			root.child(section).add("//", note)
		}
		root.set(s.Key, templateValue(s))
		if s.Key == "mcp_servers" && !global {
			root.add("//mcp_servers example (move it into mcp_servers to use it)", exampleServer())
		}
	}
	var b bytes.Buffer
	root.write(&b, "")
	b.WriteByte('\n')
	return b.Bytes()
}

// templateValue is what a template writes for a setting.
func templateValue(s *Setting) any {
	v := s.Example
	if v == nil {
		v = s.Default
	}
	switch t := v.(type) {
	case nil:
		return 0 // a limit or price: 0 = none
	case time.Duration:
		return int64(t / time.Second)
	}
	return v
}

// tmplNode is an object of a template, its members in insertion order.
type tmplNode struct {
	keys []string
	vals map[string]any // a leaf value or a *tmplNode
}

func (n *tmplNode) add(key string, v any) {
	if n.vals == nil {
		n.vals = map[string]any{}
	}
	if _, ok := n.vals[key]; !ok {
		n.keys = append(n.keys, key)
	}
	n.vals[key] = v
}

func (n *tmplNode) child(key string) *tmplNode {
	if c, ok := n.vals[key].(*tmplNode); ok {
		return c
	}
	c := &tmplNode{}
	n.add(key, c)
	return c
}

// set stores v at the dotted key.
func (n *tmplNode) set(key string, v any) {
	for {
		first, rest, nested := strings.Cut(key, ".")
		if !nested {
			n.add(first, v)
			return
		}
		n, key = n.child(first), rest
	}
}

// write prints the node as indented JSON; leaves are one line each.
func (n *tmplNode) write(b *bytes.Buffer, indent string) {
	b.WriteString("{\n")
	for i, k := range n.keys {
		kj, _ := json.Marshal(k)
		b.WriteString(indent + "  " + string(kj) + ": ")
		v := n.vals[k]
		if node, ok := v.(*tmplNode); ok {
			node.write(b, indent+"  ")
		} else if lines, ok := v.([]string); ok && len(lines) > 1 {
			out, _ := json.MarshalIndent(lines, indent+"  ", "  ")
			b.Write(out)
		} else {
			leaf, _ := json.Marshal(v)
			b.Write(leaf)
		}
		if i < len(n.keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}

// WriteTemplate writes Template(global) to path, creating a global file's
// parent directory with mode 0700. The global file gets mode 0600, because
// it may hold a key; the project file 0644, because it travels with the
// repository and may hold no secrets (its ${VAR} cannot read them). It refuses to replace an
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
	mode := fs.FileMode(0o644)
	if global {
		mode = 0o600
	}
	f, err := os.OpenFile(path, flags, mode)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	// An overwritten file keeps its old mode, and the umask applies to a new one.
	if err := f.Chmod(mode); err != nil {
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
