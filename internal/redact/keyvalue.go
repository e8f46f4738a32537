package redact

import (
	"strings"
	"sync"
)

// fieldWords make a `name: value` / `name=value` pair's value secret: the
// env-name words plus KEY (sort_key=… is masked too; redaction errs that
// way) and PASSW (passwort, passwd).
var fieldWords = sync.OnceValue(func() *wordIndex {
	return indexWords(append([][]byte{[]byte("KEY"), []byte("PASSW")}, secretNameWords...))
})

// minValue is the shortest value of a pair that is masked; shorter values
// (tokens: 12, key=id) are counts and ids, not credentials.
const minValue = 4

// maskKeyValues masks the value of every `name: value` / `name=value` pair whose
// name looks secret (API_KEY=…, "password": "…", and the same inside a
// JSON-escaped string, \"password\":\"…\"), and each quoted string of a
// list value ("tokens": ["…", "…"]). It jumps from separator to
// separator and looks back at the name, so clean text costs about a byte
// compare per byte; the equivalent case-insensitive regexp costs ~300 ns/byte.
func maskKeyValues(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.IndexAny(s[i:], ":=")
		if k < 0 {
			break
		}
		sep := i + k
		i = sep + 1
		if !secretField(nameBefore(s, sep)) {
			continue
		}
		for _, v := range valuesAfter(s, sep+1) {
			if v.end-v.start < minValue || !secretValue(s[v.start:v.end]) {
				continue
			}
			b.WriteString(s[last:v.start])
			b.WriteString(Mask)
			last, i = v.end, max(i, v.end)
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretField reports whether a pair's name looks secret.
func secretField(name string) bool {
	if name == "" {
		return false
	}
	var buf [stackName]byte
	return containsWord(normalizeName(buf[:0], name), fieldWords()) || hasSecretSegment(name)
}

// maxName bounds how far back nameBefore looks.
const maxName = 128

// nameBefore returns the name that ends before the separator at sep, allowing
// blanks and one closing quote, itself possibly escaped (\" or \\\"), in between.
func nameBefore(s string, sep int) string {
	j := sep
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
		for j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	end := j
	for j > 0 && end-j < maxName && isNameByte(s[j-1]) {
		j--
	}
	return s[j:end]
}

// span is a value's place in a text: s[start:end].
type span struct{ start, end int }

// valuesAfter returns the values of a pair whose separator ends before j:
// one value, or each quoted string of a list ("tokens": ["a", "b"]).
func valuesAfter(s string, j int) []span {
	j = skipBlanks(s, j)
	if j < len(s) && s[j] == '[' {
		return listValues(s, j+1)
	}
	start, end := valueAfter(s, j)
	return []span{{start, end}}
}

// valueAfter returns the value that starts at j, after the blanks: an
// optional quote (possibly escaped), then bytes up to the quote that closes
// it (blanks, commas and the like included: "correct horse battery"), or,
// unquoted, up to a blank, quote, list separator or JSON escape that ends
// a value. A quoted value ends at a line break too, if it is never closed.
func valueAfter(s string, j int) (int, int) {
	j = skipBlanks(s, j)
	q := j
	for q < len(s) && s[q] == '\\' {
		q++
	}
	if q < len(s) && (s[q] == '"' || s[q] == '\'') {
		return q + 1, quotedEnd(s, q+1, q-j, s[q])
	}
	k := j
	for k < len(s) && !valueEndsAt(s, k) {
		k++
	}
	return j, k
}

// quotedEnd returns where a value opened by quote q, itself escaped by bs
// backslashes, ends from k: at q after bs backslashes (after an even run
// of them when bs is 0: \" inside "…" is part of the value), or at a line
// break, raw or escaped at the value's level (\n in a JSON-escaped text).
func quotedEnd(s string, k, bs int, q byte) int {
	for ; k < len(s); k++ {
		switch c := s[k]; {
		case c == '\n' || c == '\r':
			return k
		case c == q && bs == 0:
			return k
		case c == '\\':
			r := k
			for r < len(s) && s[r] == '\\' {
				r++
			}
			if r == len(s) {
				return r
			}
			run, next := r-k, s[r]
			switch {
			case next == q && (run == bs || bs == 0 && run%2 == 0):
				if bs == 0 {
					return r // the backslashes are the value's own
				}
				return k
			case bs > 0 && run == bs && (next == 'n' || next == 'r'):
				return k
			}
			k = r // the escaped byte is part of the value
		}
	}
	return k
}

// listValues returns the quoted strings of a list whose '[' ends before j,
// up to its ']' or to the first element that is not a quoted string (a
// number, an object: not a credential this masker can tell).
func listValues(s string, j int) []span {
	var out []span
	for k := skipBlanks(s, j); k < len(s); k = skipBlanks(s, k) {
		q := k
		for q < len(s) && s[q] == '\\' {
			q++
		}
		if q == len(s) || s[q] != '"' && s[q] != '\'' {
			return out
		}
		start := q + 1
		end := quotedEnd(s, start, q-k, s[q])
		out = append(out, span{start, end})
		if end == len(s) || s[end] == '\n' || s[end] == '\r' {
			return out
		}
		k = skipBlanks(s, end+(q-k)+1)
		if k == len(s) || s[k] != ',' {
			return out
		}
		k++
	}
	return out
}

// valueEndsAt reports whether the value stops at s[k]: a blank, quote or list
// separator, an escaped quote (a run of backslashes, then a quote: \" or
// \\\" in text escaped twice), or an escaped line break or tab (\n \r \t).
// A backslash escaping anything else (\\ for a literal backslash) is part of
// the value.
func valueEndsAt(s string, k int) bool {
	switch s[k] {
	case ' ', '\t', '\r', '\n', '"', '\'', ',', ';', '&':
		return true
	case '\\':
		run := k
		for run < len(s) && s[run] == '\\' {
			run++
		}
		if run == len(s) {
			return false
		}
		switch s[run] {
		case '"', '\'':
			return true
		case 'n', 'r', 't':
			return run == k+1
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

func skipBlanks(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j
}

// secretValue rejects values that are already masked and the scheme word of an
// Authorization header (its credential is masked by authRE).
func secretValue(v string) bool {
	return !strings.HasPrefix(v, Mask) && !strings.EqualFold(v, "bearer") && !strings.EqualFold(v, "basic")
}
