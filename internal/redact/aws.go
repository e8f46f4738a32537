package redact

import "strings"

// awsSecretLen is the length of an AWS secret access key: 40 characters of
// the base64 alphabet.
const awsSecretLen = 40

// minDistinct is how many different bytes a bare 40-character run needs to
// count as random: a random key has about 30, camel-case words and paths of
// that length have about 20.
const minDistinct = 24

// maskAWSSecrets masks bare AWS secret access keys: a run of exactly 40
// characters of [A-Za-z0-9/+] that mixes upper case, lower case and digits
// and looks random (minDistinct). Labelled keys (aws_secret_access_key=…)
// are masked by maskKeyValues already; this catches the rest, such as the
// second column of a credentials CSV. Hex digests (one case) never match.
func maskAWSSecrets(s string) string {
	var b strings.Builder
	last := 0
	// i never lies inside a run (i == 0 or s[i-1] is not a key byte), so a
	// 40-byte run that starts at or after i covers s[i+39]. That one byte
	// decides whether the 40 before it can hold a key: clean text is judged
	// by looking at about two words in every 40 bytes.
	for i := 0; i+awsSecretLen <= len(s); {
		p := i + awsSecretLen - 1
		if !keyByte[s[p]] {
			i = p + 1
			continue
		}
		start, end := p, p+1
		for start > i && keyByte[s[start-1]] {
			start--
		}
		for end < len(s) && keyByte[s[end]] {
			end++
		}
		if end-start == awsSecretLen && looksRandom(s[start:end]) {
			b.WriteString(s[last:start])
			b.WriteString(Mask)
			last = end
		}
		i = end + 1 // s[end] is not a key byte
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyByte marks the bytes of a secret access key: [A-Za-z0-9/+].
var keyByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '+'
	}
	return t
}()

// looksRandom reports whether run mixes upper case, lower case and digits
// and has at least minDistinct different bytes.
func looksRandom(run string) bool {
	var seen [128]bool
	distinct := 0
	var upper, lower, digit bool
	for i := 0; i < len(run); i++ {
		c := run[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
		if !seen[c] {
			seen[c] = true
			distinct++
		}
	}
	return upper && lower && digit && distinct >= minDistinct
}
