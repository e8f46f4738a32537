package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// launchForm names the form in which the launcher reads its policy
// from argv:
//
//	odek-launch/1 <mode> net=<0|1> landlock=<0|1> ruleset=<0|1> flags=<n> [<root>…]
//
// each root Go-quoted. It carries only what a launch uses (the paths a
// rule grants travel as held descriptors, see hold.go), and it is not
// JSON: decoding JSON fills encoding/json's reflection caches first, which
// was about a quarter of the instructions of each of the two starts of a
// sandboxed call (0.28 M of 1.16 M, callgrind). The form is canonical: a
// string is accepted only if encoding what it decodes to gives it back.
const launchForm = "odek-launch/1"

// encodeLaunch is p as the launcher reads it from its argv.
func (p Policy) encodeLaunch() string {
	var l LaunchInfo
	if p.Launch != nil {
		l = *p.Launch
	}
	var b strings.Builder
	b.WriteString(launchForm + " " + p.Mode)
	b.WriteString(" net=" + bit(p.Network) + " landlock=" + bit(p.Landlock) + " ruleset=" + bit(l.Ruleset))
	b.WriteString(" flags=" + strconv.FormatUint(uint64(l.RulesetFlags), 10))
	for _, r := range l.Roots {
		b.WriteString(" " + strconv.Quote(r))
	}
	return b.String()
}

// decodeLaunch is the policy encodeLaunch wrote: its mode, network,
// Landlock and LaunchInfo. Anything else, or the same in another spelling,
// is refused.
func decodeLaunch(s string) (Policy, error) {
	bad := func(why string) (Policy, error) {
		return Policy{}, fmt.Errorf("%w: launch policy: %s", ErrBadPolicy, why)
	}
	w := strings.SplitN(s, " ", 7)
	if len(w) < 6 || w[0] != launchForm {
		return bad("want " + launchForm + " and five fields")
	}
	p := Policy{Mode: w[1]}
	if p.Mode != ModeWorkspaceWrite && p.Mode != ModeReadOnly && p.Mode != ModeOff {
		return bad("mode " + strconv.Quote(p.Mode))
	}
	var l LaunchInfo
	p.Network, l.Ruleset = w[2] == "net=1", w[4] == "ruleset=1"
	p.Landlock = w[3] == "landlock=1"
	flags, err := strconv.ParseUint(strings.TrimPrefix(w[5], "flags="), 10, 32)
	if err != nil {
		return bad("flags " + strconv.Quote(w[5]))
	}
	l.RulesetFlags = uint32(flags)
	if len(w) == 7 {
		for rest := w[6]; ; rest = rest[1:] {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return bad("a root is not a quoted string")
			}
			root, err := strconv.Unquote(q)
			if err != nil {
				return bad("a root is not a quoted string")
			}
			l.Roots = append(l.Roots, root)
			if rest = rest[len(q):]; rest == "" {
				break
			}
			if rest[0] != ' ' {
				return bad("roots are not separated by one space")
			}
		}
	}
	if l.Ruleset || l.RulesetFlags != 0 || len(l.Roots) > 0 {
		p.Launch = &l
	}
	if p.encodeLaunch() != s {
		return bad("not in the form " + launchForm + " writes")
	}
	return p, nil
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
