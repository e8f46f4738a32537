package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/untrusted"
)

// hookHint tells the operator how to approve project hooks without a terminal.
const hookHint = "run odek interactively once to approve it, or set ODEK_APPROVE_HOOKS=1"

// Hook grants a project hook the right to run. The grant is keyed on
// everything that decides what runs (HookKey) and on the content of the
// project files its command line names, so editing the script asks again.
// Declined at a prompt, the run goes on without the hook (a warning); with
// nobody to ask and no grant, it is an error naming the hook (exit 3).
func (g *Gate) Hook(ctx context.Context, s hooks.Spec) (bool, []string, error) {
	if g.allHooks {
		return true, nil, nil
	}
	files := boundWords(s.Dir, s.Words())
	key := HookKey(s, files)
	if g.hooks.Has(key) {
		return true, nil, nil
	}
	if g.ask == nil {
		return false, nil, newErr("", fmt.Sprintf("project hook %s (%s) in %s requires the operator's approval; %s",
			s.Name(), hookWhat(s), definingHookFile(s), hookHint), ErrNotApproved)
	}
	ans, err := g.ask.Confirm(ctx, Question{Text: hookQuestion(s, files)})
	if err != nil {
		return false, nil, newErr("", fmt.Sprintf("hook approval: %s: prompt failed: %v", s.Name(), err), err)
	}
	if ans == Deny {
		return false, []string{fmt.Sprintf("project hook %s was not approved; running without it", s.Name())}, nil
	}
	if err := g.hooks.Grant(key, g.hookRecord(s, files)); err != nil {
		return false, nil, newErr("", fmt.Sprintf("hook approval: %s: %v", s.Name(), err), err)
	}
	return true, nil, nil
}

func (g *Gate) hookRecord(s hooks.Spec, files []FileDigest) Record {
	r := Record{Kind: "hook", Hook: string(s.Event), Matcher: s.Matcher, Dir: s.Dir,
		Command: untrusted.OneLine(hookWhat(s), maxRecordCommand), GrantedAt: g.now().UTC()}
	if len(files) > 0 {
		r.Files = make(map[string]string, len(files))
		for _, f := range files {
			r.Files[f.Path] = f.SHA256
		}
	}
	return r
}

// HookKey fingerprints a project hook: hex SHA-256 over its directory,
// event, matcher, type, command, URL, headers, allowed variables, timeout
// and on_error, and then each bound file's path and SHA-256, every field
// length-prefixed so no two hooks give the same stream.
func HookKey(s hooks.Spec, files []FileDigest) string {
	h := sha256.New()
	hd := s.Handler
	fields := []string{"hook", s.Dir, string(s.Event), s.Matcher, hd.Type, hd.Command, hd.URL,
		strconv.FormatInt(int64(hd.Timeout), 10), strconv.FormatBool(hd.Block)}
	for _, k := range sortedKeys(hd.Headers) {
		fields = append(fields, "header:"+k, hd.Headers[k])
	}
	for _, v := range sortedCopy(hd.AllowedEnvVars) {
		fields = append(fields, "env:"+v)
	}
	for _, f := range fields {
		writeLP(h, f)
	}
	for _, f := range files {
		writeLP(h, "file:")
		writeLP(h, f.Path)
		writeLP(h, f.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hookWhat is a hook's command line or URL.
func hookWhat(s hooks.Spec) string {
	if s.Handler.Type == hooks.TypeHTTP {
		return s.Handler.URL
	}
	return s.Handler.Command
}

func definingHookFile(s hooks.Spec) string {
	return plainOrQuoted(strings.TrimSuffix(s.Dir, "/") + "/" + ProjectFile)
}

// hookQuestion shows all that decides what the hook runs: event, matcher,
// the command (Go-quoted, wrapped, never cut), the URL and headers of an
// http hook, timeout and on_error, and the files the grant is bound to.
func hookQuestion(s hooks.Spec, files []FileDigest) string {
	var b strings.Builder
	line := func(format string, a ...any) { b.WriteString(wrapLine(fmt.Sprintf(format, a...), promptWidth)) }
	if s.Handler.Type == hooks.TypeHTTP {
		line("A project hook wants odek to POST every %s event it matches, the tool's input included, to a URL:", s.Event)
	} else {
		line("A project hook wants to run, inside the sandbox, on every %s event it matches:", s.Event)
	}
	line("  defined in: %s (hooks.%s)", definingHookFile(s), s.Event)
	line("  matcher: %s", strconv.Quote(s.Matcher))
	hd := s.Handler
	if hd.Type == hooks.TypeHTTP {
		line("  POST to: %s", strconv.Quote(hd.URL))
		for _, k := range sortedKeys(hd.Headers) {
			line("  header: %s: %s", plainOrQuoted(k), strconv.Quote(hd.Headers[k]))
		}
	} else {
		line("  command: %s", strconv.Quote(hd.Command))
	}
	onError := "ignore (fail open)"
	if hd.Block {
		onError = "block (fail closed)"
	}
	line("  timeout: %s, on_error: %s", hd.Timeout, onError)
	for _, f := range files {
		line("  bound to the content of: %s (sha256 %s)", plainOrQuoted(f.Path), shortHash(f.SHA256))
	}
	return b.String()
}
