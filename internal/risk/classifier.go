package risk

import (
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Options configure a Classifier.
type Options struct {
	Dir  string // the working directory; "" = the process's
	Home string // expands "~"; "" = "~" paths count as outside
}

// Classifier classifies shell commands and path operations relative to one
// working directory. It is safe for concurrent use.
type Classifier struct {
	root string // Dir, absolute, symlinks resolved
	home string
}

// maxNesting bounds sh -c / eval / watch strings inside strings.
const maxNesting = 8

// maxCommandBytes bounds what is parsed; a longer command is unknown.
const maxCommandBytes = 256 << 10

// New resolves the working directory once.
func New(o Options) (*Classifier, error) {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	home := o.Home
	if home != "" {
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		}
	}
	return &Classifier{root: root, home: home}, nil
}

// Root is the working directory, absolute with symlinks resolved.
func (c *Classifier) Root() string { return c.root }

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// Shell classifies a command line as bash -c would run it in the working
// directory. Every part counts: each command of a list or pipeline, command
// and process substitutions, here-documents, function bodies, strings given
// to sh -c, eval, su -c, watch, find -exec, xargs. Wrappers (sudo, env, nice,
// timeout, command, exec, …) are seen through. A command that does not
// parse, or a program name computed at run time, is unknown.
func (c *Classifier) Shell(cmd string) Assessment {
	a := c.shell(cmd, c.root, 0)
	if strings.Contains(cmd, "IFS") {
		// rm${IFS}-rf${IFS}/ : read $IFS as the word break it becomes.
		if alt := replaceIFS(cmd); alt != cmd {
			a = a.Merge(c.shell(alt, c.root, 0))
		}
	}
	a.Inspect = a.Set == Of(Safe)
	return a
}

func (c *Classifier) shell(cmd, cwd string, depth int) Assessment {
	if len(cmd) > maxCommandBytes {
		return unknownA("the command is too long to classify")
	}
	if depth > maxNesting {
		return unknownA("commands nested too deep to classify")
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(cmd), "")
	parsers.Put(p)
	if err != nil {
		return unknownA("the command does not parse")
	}
	w := &walker{c: c, cwd: cwd, depth: depth, funcs: map[string]bool{}}
	w.stmts(f.Stmts)
	if w.a.Set == 0 {
		w.add(Safe, "does nothing")
	}
	return w.a
}

func unknownA(reason string) Assessment {
	return Assessment{Class: Unknown, Set: Of(Unknown), Reason: reason}
}

// replaceIFS turns $IFS and ${IFS…} into a space.
func replaceIFS(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			rest := s[i+1:]
			if strings.HasPrefix(rest, "{IFS") {
				if end := strings.IndexByte(rest, '}'); end >= 0 {
					b.WriteByte(' ')
					i += end + 1
					continue
				}
			}
			if strings.HasPrefix(rest, "IFS") && (len(rest) == 3 || !isNameByte(rest[3])) {
				b.WriteByte(' ')
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
