package wire

import (
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/untrusted"
)

// denialMarker starts the text of a policy denial (docs/TOOLS.md).
const denialMarker = "operation denied by configuration: "

// changeVerbs start the tool-output lines that name a changed file
// (the four of docs/SUBAGENTS.md, and the patch tool's).
var changeVerbs = []string{"wrote ", "created ", "modified ", "updated ", "patched "}

// FromHistory fills a child's result from its transcript: the summary (the
// final answer, else the last assistant text; at most MaxSummaryRunes runes
// and "…"), files_changed, iterations (assistant messages with tool calls)
// and the policy denials its tools met.
func FromHistory(r *Result, hist []llm.Message, answer string) {
	summary := answer
	seen := map[string]bool{}
	for _, m := range hist {
		switch m.Role {
		case llm.RoleAssistant:
			if len(m.ToolCalls) > 0 {
				r.Iterations++
			}
			if answer == "" && strings.TrimSpace(m.Content) != "" {
				summary = m.Content
			}
		case llm.RoleTool:
			r.scanToolOutput(m, seen)
		}
	}
	summary = strings.TrimSpace(summary)
	if n := utf8.RuneCountInString(summary); n > MaxSummaryRunes {
		summary, _ = cutRunes(summary, MaxSummaryRunes)
		r.SummaryTruncated, r.SummaryRunes = true, n
	}
	r.Summary = summary
}

func (r *Result) scanToolOutput(m llm.Message, seen map[string]bool) {
	for line := range strings.SplitSeq(m.Content, "\n") {
		if i := strings.Index(line, denialMarker); i >= 0 {
			r.DenialsTotal++
			if len(r.Denials) < maxReportedDenials {
				r.Denials = append(r.Denials, Denial{Tool: m.Name, Class: riskOf(line[i:]), Reason: untrusted.OneLine(line[i:], maxDenialRunes)})
			}
			continue
		}
		for _, v := range changeVerbs {
			rest, ok := strings.CutPrefix(line, v)
			if !ok {
				continue
			}
			if j := strings.Index(rest, " ("); j > 0 {
				rest = rest[:j]
			}
			if j := strings.Index(rest, ": "); j > 0 {
				rest = rest[:j]
			}
			rest = strings.TrimSpace(rest)
			if rest != "" && !seen[rest] && len(r.FilesChanged) < maxReportedFiles {
				seen[rest] = true
				r.FilesChanged = append(r.FilesChanged, untrusted.OneLine(rest, maxFileRunes))
			}
			break
		}
	}
}

// riskOf reads the class of "… (risk: <class>)".
func riskOf(s string) string {
	i := strings.LastIndex(s, "(risk: ")
	if i < 0 {
		return ""
	}
	rest := s[i+len("(risk: "):]
	if j := strings.IndexByte(rest, ')'); j >= 0 {
		return untrusted.OneLine(rest[:j], 32)
	}
	return ""
}
