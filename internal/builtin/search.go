package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/safepath"
	"github.com/odek-run/odek/internal/untrusted"
)

// Caps of search_files.
const (
	MaxMatches      = 200      // matching lines returned
	MaxMatchLine    = 300      // bytes of a matching line shown
	MaxSearchFile   = 64 << 20 // larger files are skipped
	maxPatternBytes = 4096
	searchBatch     = 32 // files per hand-off to a worker
)

type searchFiles struct{ ws *workspace }

func (t *searchFiles) Name() string { return "search_files" }

func (t *searchFiles) Description() string {
	return fmt.Sprintf("Search file contents with a regular expression (Go RE2 syntax, e.g. `func \\w+Handler\\(`; "+
		"(?i) for case-insensitive), line by line, under `path` (a directory or file, default the working "+
		"directory). `glob` keeps only files whose name matches (\"*.go\", or a path pattern with ** such as "+
		"\"internal/**/*_test.go\"). Returns \"path:line: text\" lines in file order, at most %d matches, "+
		"each line cut at %d bytes. Binary files, files over %d MiB and .git are skipped.", MaxMatches, MaxMatchLine, MaxSearchFile>>20)
}

func (t *searchFiles) Schema() json.RawMessage {
	return schema(`"pattern":{"type":"string","description":"regular expression (Go RE2 syntax)"},`+
		`"path":{"type":"string","description":"directory or file to search (default \".\")"},`+
		`"glob":{"type":"string","description":"only files matching this glob, e.g. *.go or cmd/**/*.go"}`, "pattern")
}

type searchArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Glob    string `json:"glob"`
}

func (t *searchFiles) parse(args json.RawMessage) (searchArgs, *regexp.Regexp, error) {
	var a searchArgs
	if err := decode(args, &a); err != nil {
		return a, nil, err
	}
	switch {
	case a.Pattern == "":
		return a, nil, ErrPatternRequired
	case len(a.Pattern) > maxPatternBytes:
		return a, nil, &TooLargeError{What: "pattern", Size: int64(len(a.Pattern)), Max: maxPatternBytes}
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return a, nil, fmt.Errorf("pattern: %v", err)
	}
	if a.Glob != "" {
		if _, err := path.Match(strings.ReplaceAll(a.Glob, "**", "*"), ""); err != nil {
			return a, nil, fmt.Errorf("glob %q: %v", a.Glob, err)
		}
	}
	if a.Path == "" {
		a.Path = "."
	}
	return a, re, nil
}

func (t *searchFiles) ArgsSummary(args json.RawMessage) map[string]any {
	return t.ws.pathSummary(risk.Read, args)
}

func (t *searchFiles) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	a, _, err := t.parse(args)
	if err != nil {
		return risk.Assessment{}, err
	}
	return t.ws.assess(newPathCall(t.Name(), risk.Read, a.Path))
}

func (t *searchFiles) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, re, err := t.parse(args)
	if err != nil {
		return "", err
	}
	c := newPathCall(t.Name(), risk.Read, a.Path)
	root, err := t.ws.recheck(ctx, c)
	if err != nil {
		return "", err
	}
	f, g, err := t.ws.open(root, safepath.FileFlags)
	if err != nil {
		return "", t.ws.refused(ctx, c, fmt.Errorf("search_files %s: %w", a.Path, err))
	}
	defer f.Close()
	spec := searchSpec{root: f, show: a.Path, re: re, glob: a.Glob, limit: MaxMatches, enter: entryCheck(g, root)}
	if g != nil {
		spec.check = func(fd int, rel string) bool { return g.Entry(fd, path.Join(root, rel)) == nil }
	}
	res, err := search(ctx, spec)
	if err != nil {
		return "", fmt.Errorf("search_files: %w", err)
	}
	if ctx.Err() != nil { // the files searched so far are not the result asked for
		return "", context.Cause(ctx)
	}
	header := fmt.Sprintf("%d matches for %q in %s", len(res.lines), a.Pattern, a.Path)
	if res.more {
		header += fmt.Sprintf("; stopped at %d: narrow the pattern, path or glob", MaxMatches)
	} else {
		header += fmt.Sprintf(" (%d files searched)", res.files)
	}
	return header + "\n" + untrusted.Wrap("search_files", strings.Join(res.lines, "\n")), nil
}

type searchSpec struct {
	root  *os.File // the open directory or file to search
	show  string   // how to name root in results
	re    *regexp.Regexp
	glob  string
	limit int
	// enter checks each directory the walk enters, check each file
	// opened below root (nil: every one passes): the sandbox's map.
	enter func(sub *os.File, rel string) bool
	check func(fd int, rel string) bool
}

type searchResult struct {
	lines []string
	files int
	more  bool
}

// search walks root in lexical order on one goroutine and searches files on
// GOMAXPROCS workers, which open each file below root following no symlink.
// Results are assembled in walk order, so the first limit matches are
// always the same ones; once the files walked so far in order hold limit
// matches, the rest is cancelled.
func search(ctx context.Context, s searchSpec) (searchResult, error) {
	fi, err := s.root.Stat()
	if err != nil {
		return searchResult{}, err
	}
	if !fi.IsDir() {
		return searchOne(s, fi), nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newMatcher(s.re)
	m.check = s.check
	type job struct {
		seq  int
		rels []string // a batch of files in walk order: one hand-off per batch, not per file
	}
	jobs := make(chan job, 16)
	col := &collector{limit: s.limit, done: map[int][]string{}, cancel: cancel}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 64<<10)
			for j := range jobs {
				var lines []string
				for _, rel := range j.rels {
					if ctx.Err() != nil || len(lines) >= s.limit {
						break
					}
					var l []string
					l, buf = m.file(s.root, rel, s.displayPath(rel), buf, s.limit-len(lines))
					lines = append(lines, l...)
				}
				col.put(j.seq, lines)
			}
		}()
	}
	seq, files := 0, 0
	var batch []string
	flush := func() {
		if len(batch) > 0 {
			jobs <- job{seq, batch}
			seq, batch = seq+1, nil
		}
	}
	walkErr := walkBeneath(s.root, func(rel string, d fs.DirEntry, _ *os.File) error {
		if ctx.Err() != nil {
			return fs.SkipAll
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !s.keep(rel, d.Name()) {
			return nil
		}
		batch = append(batch, rel)
		files++
		if len(batch) == searchBatch {
			flush()
		}
		return nil
	}, s.enter)
	flush()
	close(jobs)
	wg.Wait()
	if walkErr != nil {
		return searchResult{}, walkErr
	}
	lines, more := col.result()
	return searchResult{lines: lines, files: files, more: more}, nil
}

// searchOne searches root when it is a single file.
func searchOne(s searchSpec, fi fs.FileInfo) searchResult {
	if !fi.Mode().IsRegular() || !s.keep(path.Base(s.show), path.Base(s.show)) {
		return searchResult{}
	}
	var res searchResult
	res.files = 1
	if data, ok := readOpenText(s.root); ok {
		res.lines = newMatcher(s.re).lines(data, s.show, s.limit)
	}
	res.more = len(res.lines) >= s.limit
	return res
}

// keep applies the glob: on the name when it has no "/", else on the path
// below the search root.
func (s searchSpec) keep(rel, name string) bool {
	if s.glob == "" {
		return true
	}
	if !strings.Contains(s.glob, "/") {
		ok, _ := path.Match(s.glob, name)
		return ok
	}
	return matchSegments(strings.Split(s.glob, "/"), strings.Split(rel, "/"))
}

func (s searchSpec) displayPath(rel string) string { return path.Join(s.show, rel) }

// collector assembles per-file results in walk order, keeping the first
// limit lines; reaching limit cancels the search.
type collector struct {
	mu     sync.Mutex
	limit  int
	done   map[int][]string
	next   int // first seq not yet folded into out
	out    []string
	cancel func()
}

func (c *collector) put(seq int, lines []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done[seq] = lines
	for {
		l, ok := c.done[c.next]
		if !ok {
			return
		}
		delete(c.done, c.next)
		c.next++
		c.out = append(c.out, l[:min(len(l), c.limit-len(c.out))]...)
		if len(c.out) >= c.limit {
			c.cancel()
		}
	}
}

// result is the lines and whether there may be more: the limit was reached.
func (c *collector) result() ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out, len(c.out) >= c.limit
}

// matcher searches one file: a literal every match must contain is looked
// for in the whole file first (bytes.Index, vectorised), and only lines
// holding it are given to the regular expression.
type matcher struct {
	re      *regexp.Regexp
	literal []byte                        // "" = none usable
	check   func(fd int, rel string) bool // nil: every file may be read
}

func newMatcher(re *regexp.Regexp) *matcher {
	return &matcher{re: re, literal: requiredLiteral(re.String())}
}

// requiredLiteral is the longest case-sensitive literal, without newline,
// that every match contains: a literal pattern itself, or the longest
// literal of a top-level concatenation.
func requiredLiteral(expr string) []byte {
	r, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	r = r.Simplify()
	var best []rune
	consider := func(n *syntax.Regexp) {
		if n.Op == syntax.OpLiteral && n.Flags&syntax.FoldCase == 0 && len(n.Rune) > len(best) {
			best = n.Rune
		}
	}
	switch r.Op {
	case syntax.OpLiteral:
		consider(r)
	case syntax.OpConcat:
		for _, sub := range r.Sub {
			consider(sub)
		}
	}
	lit := []byte(string(best))
	if bytes.IndexByte(lit, '\n') >= 0 {
		return nil
	}
	return lit
}

// file returns the matching lines of the file rel below root (at most
// limit), skipping binaries on their first bytes and files over the size
// cap. buf is reused.
func (m *matcher) file(root *os.File, rel, show string, buf []byte, limit int) ([]string, []byte) {
	data, buf, ok := readText(root, rel, buf, m.check)
	if !ok {
		return nil, buf
	}
	return m.lines(data, show, limit), buf
}

func (m *matcher) lines(data []byte, show string, limit int) []string {
	var out []string
	if m.literal != nil {
		for off := 0; off < len(data) && len(out) < limit; {
			i := bytes.Index(data[off:], m.literal)
			if i < 0 {
				break
			}
			start := off + bytes.LastIndexByte(data[off:off+i], '\n') + 1
			end := len(data)
			if j := bytes.IndexByte(data[off+i:], '\n'); j >= 0 {
				end = off + i + j
			}
			if line := data[start:end]; m.re.Match(line) {
				out = append(out, matchLine(show, data, start, line))
			}
			off = end + 1
		}
		return out
	}
	for start := 0; start < len(data) && len(out) < limit; {
		end := len(data)
		if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
			end = start + j
		}
		if line := data[start:end]; m.re.Match(line) {
			out = append(out, matchLine(show, data, start, line))
		}
		start = end + 1
	}
	return out
}

// lineNumbers are counted only for matching lines (bytes.Count is fast).
func matchLine(show string, data []byte, start int, line []byte) string {
	n := bytes.Count(data[:start], []byte{'\n'}) + 1
	text := strings.TrimRight(string(line), "\r")
	if len(text) > MaxMatchLine {
		text = strings.ToValidUTF8(text[:MaxMatchLine], "") + " …"
	}
	return fmt.Sprintf("%s:%d: %s", show, n, text)
}
