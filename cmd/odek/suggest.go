package main

import (
	"cmp"
	"slices"
	"strings"
)

// closestFirst orders names by their edit distance to name (ignoring case),
// nearest first, ties alphabetically.
func closestFirst(name string, names []string) []string {
	type scored struct {
		name string
		d    int
	}
	s := make([]scored, len(names))
	for i, n := range names {
		s[i] = scored{n, editDistance(strings.ToLower(name), strings.ToLower(n))}
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

// editDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours cost one.
func editDistance(a, b string) int {
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
