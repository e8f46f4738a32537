package approval

import (
	"bufio"
	"context"
	"fmt"
	"io"
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
)

// Question is one thing the operator is asked to approve.
type Question struct {
	// Text describes what would be granted, one fact per line, every
	// untrusted part already escaped; it ends with a newline.
	Text string
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

const approveQuestion = "Approve? [y/N] "

// Confirm writes the question followed by "Approve? [y/N] " and reads one
// line; only "y" or "yes" (any case) approves. End of input declines. When
// ctx ends first the abandoned read is left to finish or die with the
// process: a terminal read cannot be interrupted portably, and after ctx
// ends nothing else is asked.
func (p *Prompter) Confirm(ctx context.Context, q Question) (Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.out, q.Text+approveQuestion); err != nil {
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
	}
	return Deny, nil
}

// spawnQuestion shows everything the server will execute with. Every value
// comes from a project file, so each is shown on one line, control
// characters neutralised.
func spawnQuestion(spec mcpclient.ServerSpec) string {
	cfg := spec.Config
	timeout, maxResp, maxChars := keyLimits(cfg)
	var b strings.Builder
	fmt.Fprintf(&b, "Project-level MCP server %q wants to run:\n", untrusted.OneLine(spec.Name, 64))
	if spec.Dir != "" {
		fmt.Fprintf(&b, "  defined in: %s\n", untrusted.OneLine(spec.Dir, 512))
	}
	if cfg.URL != "" {
		fmt.Fprintf(&b, "  url: %s\n", untrusted.OneLine(cfg.URL, 512))
		if cfg.TokenEnv != "" {
			fmt.Fprintf(&b, "  token_env: %s\n", untrusted.OneLine(cfg.TokenEnv, 128))
		}
	} else {
		fmt.Fprintf(&b, "  command: %s\n", untrusted.OneLine(cfg.Command, 512))
	}
	for i, a := range cfg.Args {
		fmt.Fprintf(&b, "  arg[%d]: %s\n", i, strconv.Quote(untrusted.OneLine(a, 512)))
	}
	for _, k := range sortedKeys(cfg.Env) {
		fmt.Fprintf(&b, "  env: %s=%s\n", untrusted.OneLine(k, 128), strconv.Quote(untrusted.OneLine(cfg.Env[k], 512)))
	}
	fmt.Fprintf(&b, "  limits: timeout_seconds=%d max_response_bytes=%d max_result_chars=%d\n", timeout, maxResp, maxChars)
	for _, r := range sortedCopy(cfg.ArtifactRoots) {
		fmt.Fprintf(&b, "  artifact_root: %s\n", untrusted.OneLine(r, 512))
	}
	return b.String()
}

// toolQuestion shows a tool's description (sanitised, at most 200 runes) and
// the fingerprint of its schema, which the approval is keyed on.
func toolQuestion(server string, t mcpclient.ToolDef) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %q wants to register tool %q\n", untrusted.OneLine(server, 64), untrusted.OneLine(t.Name, 64))
	fmt.Fprintf(&b, "  description: %s\n", untrusted.OneLine(t.Description, 200))
	fmt.Fprintf(&b, "  schema: sha256:%s (%d bytes)\n", SchemaSHA256(t.InputSchema)[:16], schemaSize(t.InputSchema))
	return b.String()
}

// commandLine is the short "<cmd> "<args>"" form used in errors.
func commandLine(cfg mcpclient.ServerConfig) string {
	cmd := cfg.Command
	if cmd == "" {
		cmd = cfg.URL
	}
	return untrusted.OneLine(cmd, 256) + " " + strconv.Quote(untrusted.OneLine(strings.Join(cfg.Args, " "), 256))
}

// schemaSize is the size of the schema as the server sent it.
func schemaSize(schema []byte) int {
	if len(schema) == 0 {
		return len(canonicalSchema(nil))
	}
	return len(schema)
}
