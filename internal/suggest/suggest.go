// Package suggest finds what a mistyped name was meant to be: the "did you
// mean" of unknown config keys, tool names and commands. Names are compared
// ignoring case, by optimal-string-alignment distance.
package suggest

import (
	"cmp"
	"slices"
	"strings"
)

// Nearest returns the known name nearest to name, if it is near enough to
// be a typo: at most one edit for names shorter than five characters, two
// for longer ones. Ties go to the alphabetically first. Failing that, the
// one known name that is name with a suffix after "_" (a unit left off:
// limits.max_runtime → limits.max_runtime_seconds); "" when none is near
// enough.
func Nearest(name string, known []string) string {
	if near := nearestByEdits(name, known); near != "" {
		return near
	}
	return onlyExtension(name, known)
}

// onlyExtension is the one known name that starts with name + "_", when
// exactly one does and name is not trivially short.
func onlyExtension(name string, known []string) string {
	if len(name) < 5 {
		return ""
	}
	prefix := strings.ToLower(name) + "_"
	found := ""
	for _, k := range known {
		if strings.HasPrefix(strings.ToLower(k), prefix) {
			if found != "" && found != k {
				return ""
			}
			found = k
		}
	}
	return found
}

func nearestByEdits(name string, known []string) string {
	limit := 1
	if len(name) >= 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	sorted := slices.Clone(known)
	slices.Sort(sorted)
	for _, k := range sorted {
		if d := Distance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// ByDistance orders names by their distance to name, nearest first, ties
// alphabetically. names itself is left as it is.
func ByDistance(name string, names []string) []string {
	type scored struct {
		name string
		d    int
	}
	s := make([]scored, len(names))
	for i, n := range names {
		s[i] = scored{n, Distance(strings.ToLower(name), strings.ToLower(n))}
	}
	slices.SortFunc(s, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.name, b.name))
	})
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i].name
	}
	return out
}

// Distance is the optimal-string-alignment distance between a and b, in
// runes: insertions, deletions, substitutions and transpositions of
// neighbours cost one. It is case-sensitive.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
