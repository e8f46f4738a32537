package approval

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/untrusted"
)

// Answer is the operator's reply to one Question.
type Answer int

const (
	// Deny refuses (also the answer to an empty line or end of input).
	Deny Answer = iota
	// Approve grants what the question is about.
	Approve
	// ApproveServer grants this tool and every other tool the same server
	// offers in this start (tool questions with AllowServer only).
	ApproveServer
)

// Question is one thing the operator is asked to approve.
type Question struct {
	// Text describes what would be granted, one fact per line, every
	// untrusted part already escaped; it ends with a newline.
	Text string
	// AllowServer offers ApproveServer as an answer.
	AllowServer bool
}

// Confirmer asks the operator. The Gate needs nothing else from a terminal;
// tests answer with a fake.
type Confirmer interface {
	// Confirm shows q and returns the answer. When ctx ends first it returns
	// ctx's error, so Ctrl-C at a prompt stops the run.
	Confirm(ctx context.Context, q Question) (Answer, error)
}

// Prompter is the terminal Confirmer. The CLI builds one only when stdin and
// stderr are terminals; without one, anything that needs a grant fails closed.
type Prompter struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
}

// NewPrompter reads answers from in and writes questions to out.
func NewPrompter(in io.Reader, out io.Writer) *Prompter {
	return &Prompter{in: bufio.NewReader(in), out: out}
}

// The answer lines of the two kinds of question.
const (
	approveQuestion       = "Approve? [y/N] "
	approveServerQuestion = "Approve? [y] this tool, [a] every tool of this server, [N] no: "
)

// Confirm writes the question followed by its answer line and reads one
// line: "y" or "yes" (any case) approves, "a" or "all" approves every tool
// of the server where the question allows it, anything else (an empty line,
// end of input) declines. When
// ctx ends first the abandoned read is left to finish or die with the
// process: a terminal read cannot be interrupted portably, and after ctx
// ends nothing else is asked.
func (p *Prompter) Confirm(ctx context.Context, q Question) (Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	choices := approveQuestion
	if q.AllowServer {
		choices = approveServerQuestion
	}
	if _, err := io.WriteString(p.out, q.Text+choices); err != nil {
		return Deny, err
	}
	type answer struct {
		line string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := p.in.ReadString('\n')
		got <- answer{line, err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		_, _ = io.WriteString(p.out, "\n")
		return Deny, ctx.Err()
	}
	if a.err != nil && a.line == "" {
		if a.err == io.EOF {
			_, _ = io.WriteString(p.out, "\n")
			return Deny, nil
		}
		return Deny, a.err
	}
	switch strings.ToLower(strings.TrimSpace(a.line)) {
	case "y", "yes":
		return Approve, nil
	case "a", "all":
		if q.AllowServer {
			return ApproveServer, nil
		}
	}
	return Deny, nil
}

// promptWidth is where long lines of a question wrap; continuation lines
// are indented further, so a wrapped value still reads as one.
const promptWidth = 100

// spawnQuestion shows everything the server will execute with, in full:
// the command and every argument as Go-quoted strings (so control, bidi and
// invisible characters are escaped and nothing hides after padding), the env
// values, limits, artifact roots and the project files the grant binds by
// content. Long lines wrap instead of being cut.
func spawnQuestion(spec mcpclient.ServerSpec, files []FileDigest) string {
	cfg := spec.Config
	timeout, maxResp, maxChars := keyLimits(cfg)
	var b strings.Builder
	line := func(format string, a ...any) { b.WriteString(wrapLine(fmt.Sprintf(format, a...), promptWidth)) }
	line("Project-level MCP server %s wants to run:", strconv.Quote(spec.Name))
	if spec.Dir != "" {
		line("  defined in: %s (mcp_servers.%s)", plainOrQuoted(definingFile(spec)), plainOrQuoted(spec.Name))
	}
	if cfg.URL != "" {
		line("  url: %s", plainOrQuoted(cfg.URL))
		if cfg.TokenEnv != "" {
			line("  token_env: %s", plainOrQuoted(cfg.TokenEnv))
		}
	} else {
		line("  command: %s", plainOrQuoted(cfg.Command))
	}
	for i, a := range cfg.Args {
		line("  arg[%d]: %s", i, strconv.Quote(a))
	}
	for _, k := range sortedKeys(cfg.Env) {
		line("  env: %s=%s", plainOrQuoted(k), strconv.Quote(cfg.Env[k]))
	}
	line("  limits: timeout_seconds=%d max_response_bytes=%d max_result_chars=%d", timeout, maxResp, maxChars)
	for _, r := range sortedCopy(cfg.ArtifactRoots) {
		line("  artifact_root: %s", plainOrQuoted(r))
	}
	for _, f := range files {
		line("  bound to the content of: %s (sha256 %s)", plainOrQuoted(f.Path), shortHash(f.SHA256))
	}
	return b.String()
}

func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

// plainOrQuoted shows s bare when it is made of characters that cannot
// mislead (letters, digits and common path punctuation), Go-quoted otherwise.
func plainOrQuoted(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:@+=,~%", r)) {
			return strconv.Quote(s)
		}
	}
	return s
}

// wrapLine ends s with a newline, breaking it every width runes; the
// continuation lines are indented by six spaces. s has no newline of its
// own (every value in it is quoted).
func wrapLine(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s + "\n"
	}
	var b strings.Builder
	b.WriteString(string(r[:width]) + "\n")
	for r = r[width:]; len(r) > 0; {
		n := min(len(r), width-6)
		b.WriteString("      " + string(r[:n]) + "\n")
		r = r[n:]
	}
	return b.String()
}

// toolQuestion shows a tool's description (sanitised, at most 200 runes),
// the fingerprint of its schema and its behaviour hints, which the approval
// is keyed on, and whether the policy will believe those hints.
func toolQuestion(spec mcpclient.ServerSpec, t mcpclient.ToolDef) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %q wants to register tool %q\n", untrusted.OneLine(spec.Name, 64), untrusted.OneLine(t.Name, 64))
	if spec.Project && spec.Dir != "" {
		fmt.Fprintf(&b, "  server defined in: %s\n", plainOrQuoted(definingFile(spec)))
	}
	fmt.Fprintf(&b, "  description: %s\n", untrusted.OneLine(t.Description, 200))
	fmt.Fprintf(&b, "  schema: sha256:%s (%d bytes)\n", SchemaSHA256(t.InputSchema)[:16], schemaSize(t.InputSchema))
	if hints := t.Annotations.LabelList(); hints != "" {
		trust := "not trusted: every call of it is local_write"
		if spec.Config.TrustAnnotations && !spec.Project {
			trust = "trusted (trust_annotations): a read-only tool runs as a safe inspection"
		}
		fmt.Fprintf(&b, "  hints: %s (%s)\n", hints, trust)
	}
	return b.String()
}

// ProjectFile is the project config file's name in its directory: the file
// internal/config reads project servers from (<dir>/odek.json).
const ProjectFile = "odek.json"

// definingFile is the file a project server's definition came from, so the
// operator knows what to read (or delete) before approving.
func definingFile(spec mcpclient.ServerSpec) string {
	return filepath.Join(spec.Dir, ProjectFile)
}

// commandLine is the short "<cmd> "<args>"" form used in errors; a server
// without arguments is its command (or URL) alone, not followed by "".
func commandLine(cfg mcpclient.ServerConfig) string {
	cmd := cfg.Command
	if cmd == "" {
		cmd = cfg.URL
	}
	line := untrusted.OneLine(cmd, 256)
	if len(cfg.Args) == 0 {
		return line
	}
	return line + " " + strconv.Quote(untrusted.OneLine(strings.Join(cfg.Args, " "), 256))
}

// maxRecordCommand caps the command line kept in a grant's Record; the key
// covers all of it.
const maxRecordCommand = 4096

// recordCommand is the one-line, escaped command line kept for `odek
// approvals list`: the command (or URL) and each argument Go-quoted when
// needed, capped at maxRecordCommand runes.
func recordCommand(cfg mcpclient.ServerConfig) string {
	words := []string{plainOrQuoted(cfg.Command)}
	if cfg.URL != "" {
		words = []string{plainOrQuoted(cfg.URL)}
	}
	for _, a := range cfg.Args {
		words = append(words, plainOrQuoted(a))
	}
	return untrusted.OneLine(strings.Join(words, " "), maxRecordCommand)
}

// schemaSize is the size of the schema as the server sent it.
func schemaSize(schema []byte) int {
	if len(schema) == 0 {
		return len(canonicalSchema(nil))
	}
	return len(schema)
}
