package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/safepath"
	"github.com/odek-run/odek/internal/untrusted"
)

// Caps of list_dir and glob.
const (
	DefaultListDepth = 1
	MaxListDepth     = 5
	MaxEntries       = 1000   // entries listed / paths matched per call
	maxVisits        = 200000 // directory entries a glob walk looks at
)

type listDir struct{ ws *workspace }

func (t *listDir) Name() string { return "list_dir" }

func (t *listDir) Description() string {
	return fmt.Sprintf("List a directory of the workspace: one entry per line, sorted, directories ending in \"/\", "+
		"symlinks as \"name -> target\". `depth` lists subdirectories too (default %d, at most %d); the contents of "+
		".git are never listed. At most %d entries. `path` defaults to the working directory.", DefaultListDepth, MaxListDepth, MaxEntries)
}

func (t *listDir) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"directory, relative to the working directory (default \".\")"},` +
		fmt.Sprintf(`"depth":{"type":"integer","minimum":1,"maximum":%d,"description":"levels to list (default %d)"}`, MaxListDepth, DefaultListDepth))
}

type listArgs struct {
	Path  string `json:"path"`
	Depth int    `json:"depth"`
}

func (t *listDir) parse(args json.RawMessage) (listArgs, error) {
	var a listArgs
	if err := decode(args, &a); err != nil {
		return a, err
	}
	if a.Path == "" {
		a.Path = "."
	}
	if a.Depth < 0 {
		return a, fmt.Errorf("depth %d must be >= 1", a.Depth)
	}
	if a.Depth == 0 {
		a.Depth = DefaultListDepth
	}
	a.Depth = min(a.Depth, MaxListDepth)
	return a, nil
}

func (t *listDir) ArgsSummary(args json.RawMessage) map[string]any {
	return t.ws.pathSummary(risk.Read, args)
}

func (t *listDir) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	a, err := t.parse(args)
	if err != nil {
		return risk.Assessment{}, err
	}
	return t.ws.assess(newPathCall(t.Name(), risk.Read, a.Path))
}

func (t *listDir) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := t.parse(args)
	if err != nil {
		return "", err
	}
	c := newPathCall(t.Name(), risk.Read, a.Path)
	dir, err := t.ws.recheck(ctx, c)
	if err != nil {
		return "", err
	}
	root, g, err := t.ws.open(dir, safepath.DirFlags)
	if errors.Is(err, safepath.ErrNotDir) {
		return "", fmt.Errorf("list_dir %s: not a directory (use read_file)", a.Path)
	}
	if err != nil {
		return "", t.ws.refused(ctx, c, fmt.Errorf("list_dir %s: %w", a.Path, err))
	}
	defer root.Close()
	var lines []string
	truncated := false
	err = walkBeneath(root, func(rel string, d fs.DirEntry, parent *os.File) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if len(lines) == MaxEntries {
			truncated = true
			return fs.SkipAll
		}
		lines = append(lines, entryLine(parent, rel, d))
		if d.IsDir() && (d.Name() == ".git" || strings.Count(rel, "/")+1 >= a.Depth) {
			return fs.SkipDir
		}
		return nil
	}, entryCheck(g, dir))
	if err != nil {
		return "", fmt.Errorf("list_dir %s: %w", a.Path, err)
	}
	header := fmt.Sprintf("%s: %d entries", a.Path, len(lines))
	if truncated {
		header += fmt.Sprintf(" (stopped at %d; list a subdirectory or lower depth)", MaxEntries)
	}
	return header + "\n" + untrusted.Wrap("list_dir", strings.Join(lines, "\n")), nil
}

func entryLine(parent *os.File, rel string, d fs.DirEntry) string {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		target, _ := safepath.Readlink(parent, d.Name())
		return rel + " -> " + target
	case d.IsDir():
		return rel + "/"
	}
	return rel
}

type globTool struct{ ws *workspace }

func (t *globTool) Name() string { return "glob" }

func (t *globTool) Description() string {
	return fmt.Sprintf("Find files whose path matches a glob pattern, relative to the working directory: `*` and "+
		"`?` match within one path element, `[abc]` a set, and `**` any number of directories (\"**/*.go\", "+
		"\"cmd/**/main.go\"). Returns matching paths, sorted, at most %d; .git is skipped.", MaxEntries)
}

func (t *globTool) Schema() json.RawMessage {
	return schema(`"pattern":{"type":"string","description":"glob pattern, e.g. **/*_test.go"}`, "pattern")
}

type globArgs struct {
	Pattern string `json:"pattern"`
}

func (t *globTool) parse(args json.RawMessage) (globArgs, error) {
	var a globArgs
	if err := decode(args, &a); err != nil {
		return a, err
	}
	if a.Pattern == "" {
		return a, ErrPatternRequired
	}
	if _, err := path.Match(strings.ReplaceAll(a.Pattern, "**", "*"), ""); err != nil {
		return a, fmt.Errorf("pattern %q: %v", a.Pattern, err)
	}
	return a, nil
}

// base is the pattern's directory part before its first wildcard: the walk
// starts there, and the risk is where it resolves.
func globBase(pattern string) string {
	i := strings.IndexAny(pattern, "*?[")
	if i < 0 {
		return path.Dir(pattern)
	}
	j := strings.LastIndexByte(pattern[:i], '/')
	if j < 0 {
		return "."
	}
	if j == 0 {
		return "/"
	}
	return pattern[:j]
}

func (t *globTool) ArgsSummary(args json.RawMessage) map[string]any {
	var a globArgs
	_ = json.Unmarshal(args, &a)
	s := t.ws.pathSummary(risk.Read, json.RawMessage(fmt.Sprintf(`{"path":%q}`, globBase(a.Pattern))))
	s["path"] = a.Pattern
	return s
}

func (t *globTool) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	a, err := t.parse(args)
	if err != nil {
		return risk.Assessment{}, err
	}
	c := newPathCall(t.Name(), risk.Read, globBase(a.Pattern))
	c.what = a.Pattern
	return t.ws.assess(c)
}

func (t *globTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := t.parse(args)
	if err != nil {
		return "", err
	}
	base := globBase(a.Pattern)
	c := newPathCall(t.Name(), risk.Read, base)
	c.what = a.Pattern
	dir, err := t.ws.recheck(ctx, c)
	if err != nil {
		return "", err
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(a.Pattern, base), "/")
	if base == "." && !strings.HasPrefix(a.Pattern, "./") {
		rest = a.Pattern
	}
	var matches []string
	truncated := false
	root, g, err := t.ws.open(dir, safepath.DirFlags)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, safepath.ErrNotDir):
		err = nil // nothing below a missing base matches
	case err == nil:
		defer root.Close()
		matches, truncated, err = globWalk(ctx, root, base, strings.Split(rest, "/"), maxVisits, entryCheck(g, dir))
	}
	if err != nil {
		return "", t.ws.refused(ctx, c, fmt.Errorf("glob %s: %w", a.Pattern, err))
	}
	sort.Strings(matches)
	header := fmt.Sprintf("%s: %d matches", a.Pattern, len(matches))
	if truncated {
		header += " (stopped early; narrow the pattern)"
	}
	return header + "\n" + untrusted.Wrap("glob", strings.Join(matches, "\n")), nil
}

// globWalk returns the paths below root (named base in them) that match
// segs, at most MaxEntries of them, looking at no more than visitCap
// entries; truncated says it stopped early (or ctx ended).
func globWalk(ctx context.Context, root *os.File, base string, segs []string, visitCap int, enter func(*os.File, string) bool) (matches []string, truncated bool, err error) {
	visits := 0
	err = walkBeneath(root, func(rel string, d fs.DirEntry, _ *os.File) error {
		if visits++; visits > visitCap || ctx.Err() != nil {
			truncated = true
			return fs.SkipAll
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		names := strings.Split(rel, "/")
		if matchSegments(segs, names) {
			if len(matches) == MaxEntries {
				truncated = true
				return fs.SkipAll
			}
			matches = append(matches, path.Join(base, rel))
		}
		if d.IsDir() && !mayMatchBelow(segs, names) {
			return fs.SkipDir // "*.md" does not walk the subtrees
		}
		return nil
	}, enter)
	return matches, truncated, err
}

// mayMatchBelow reports whether a path with name's elements and at least
// one more could match the pattern elements pat: a directory for which it
// is false is not walked, so a pattern without "**" looks only as deep as
// it reaches and finds its matches however large the subtrees beside them.
func mayMatchBelow(pat, name []string) bool {
	for ; len(name) > 0; pat, name = pat[1:], name[1:] {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
	}
	return len(pat) > 0
}

// matchSegments matches path elements against pattern elements; "**"
// matches zero or more elements.
func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(name); k++ {
				if matchSegments(pat[1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
