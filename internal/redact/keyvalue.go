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
// JSON-escaped string, \"password\":\"…\"). It jumps from separator to
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
		start, end := valueAfter(s, sep+1)
		if end-start < minValue || !secretValue(s[start:end]) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Mask)
		last, i = end, end
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

// valueAfter returns the value that starts after a separator at j: blanks, an
// optional quote (possibly escaped), then bytes up to a blank, quote, list
// separator or JSON escape that ends a value.
func valueAfter(s string, j int) (int, int) {
	j = skipBlanks(s, j)
	q := j
	for q < len(s) && s[q] == '\\' {
		q++
	}
	if q < len(s) && (s[q] == '"' || s[q] == '\'') {
		j = q + 1
	}
	k := j
	for k < len(s) && !valueEndsAt(s, k) {
		k++
	}
	return j, k
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
