package redact

import (
	"strings"
	"testing"
)

// Every secret-looking field name, in every pair form and case, masks its value.
func TestKeyValuePairsForEveryName(t *testing.T) {
	names := []string{"key", "passw"}
	for _, w := range SecretNameWords() {
		names = append(names, strings.ToLower(w))
	}
	names = append(names, "api_key", "api-key", "ApiKey", "aws_secret_access_key", "client_secret", "GITHUB_TOKEN",
		"db_password", "passwort", "x-auth-token", "session_cookie", "aws_creds", "private-key", "access_key")
	forms := []struct{ in, want string }{
		{"%s=v4lue.x/y+z=", "%s=" + Mask},
		{"%s: v4lue.x/y+z=", "%s: " + Mask},
		{"%s :\tv4lue", "%s :\t" + Mask},
		{`"%s": "v4lue"`, `"%s": "` + Mask + `"`},
		{`'%s'='v4lue'`, `'%s'='` + Mask + `'`},
		{`{\"%s\":\"v4lue\"}`, `{\"%s\":\"` + Mask + `\"}`},                   // JSON-escaped
		{`{\\\"%s\\\": \\\"v4lue\\\"}`, `{\\\"%s\\\": \\\"` + Mask + `\\\"}`}, // escaped twice
		{`"text":"%s=v4lue\nnext=1"`, `"text":"%s=` + Mask + `\nnext=1"`},     // escaped newline ends it
		{"MY_%s_2=v4lue", "MY_%s_2=" + Mask},
		{"%s=abcd", "%s=" + Mask}, // minimum length
		{"%s=abc", "%s=abc"},      // one short
	}
	for _, name := range names {
		for _, casing := range []string{strings.ToLower(name), strings.ToUpper(name), mixCase(name)} {
			for _, f := range forms {
				in := strings.ReplaceAll(f.in, "%s", casing)
				want := strings.ReplaceAll(f.want, "%s", casing)
				masked(t, in, want)
			}
		}
	}
}

func mixCase(s string) string {
	b := []byte(s)
	for i := range b {
		if i%2 == 0 && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

func TestKeyValueBoundaries(t *testing.T) {
	long := func(n int) string { return "token" + strings.Repeat("x", n-len("token")) }
	tests := []struct{ in, want string }{
		{"password=a,b", "password=a,b"},
		{"password=abcd,user=bob", "password=" + Mask + ",user=bob"},
		{"password=abcd;x", "password=" + Mask + ";x"},
		{"password=abcd&x=1", "password=" + Mask + "&x=1"},
		{"password=abcd efgh", "password=" + Mask + " efgh"},
		{"password=abcd\r\nx", "password=" + Mask + "\r\nx"},
		{"password=abcd\tx", "password=" + Mask + "\tx"},
		{`password=ab\\cd x`, "password=" + Mask + " x"}, // an escaped backslash is part of the value
		{`password=abcd\tx`, `password=` + Mask + `\tx`},
		{`password=abcd\rx`, `password=` + Mask + `\rx`},
		{`password=abcd\'x`, `password=` + Mask + `\'x`},
		{"password=\"abcd\"", "password=\"" + Mask + "\""},
		{"password='abcd'", "password='" + Mask + "'"},
		{"token=" + Mask, "token=" + Mask},
		{"Authorization: Bearer", "Authorization: Bearer"},
		{"authorization: basic", "authorization: basic"},
		{"tokens: 12", "tokens: 12"},
		{"monkey: banana", "monkey: " + Mask}, // any name with KEY: redaction errs on the safe side
		{"path=/usr/bin", "path=/usr/bin"},
		{"=abcdefgh", "=abcdefgh"},
		{": abcdefgh", ": abcdefgh"},
		{"-token-=abcd", "-token-=" + Mask},
		{"x.token=abcd", "x.token=" + Mask}, // the name is what precedes the separator
		{"token.x=abcd", "token.x=abcd"},
		{long(128) + "=abcd", long(128) + "=" + Mask}, // the name is read back 128 bytes
		{long(129) + "=abcd", long(129) + "=abcd"},
		{"password=abcd password=efgh", "password=" + Mask + " password=" + Mask},
		{"x==y password=abcd", "x==y password=" + Mask}, // separators side by side
		{"token0=abcd token9=abcd", "token0=" + Mask + " token9=" + Mask},
		{"password=", "password="}, // the text ends where a value would start
		{"password=   ", "password=   "},
		{`password=\`, `password=\`},
		{`password=abcd\`, "password=" + Mask},
		{`"=abcd`, `"=abcd`},
		{`"=abcd`, `"=abcd`},
		// A quoted value ends at its closing quote, blanks and commas
		// included (issue 34.11: an elicitation answer "correct horse …").
		{`{"password": "correct horse, battery"}`, `{"password": "` + Mask + `"}`},
		{`password='a b c d' next`, `password='` + Mask + `' next`},
		{`{\"password\":\"a b c d\",\"n\":1}`, `{\"password\":\"` + Mask + `\",\"n\":1}`},
		{`{"password": "ab\"cd"}`, `{"password": "` + Mask + `"}`},      // an escaped quote is part of it
		{`{"password": "abcd\\"}`, `{"password": "` + Mask + `"}`},      // an escaped backslash ends it
		{"password=\"abcd efgh\nnext", "password=\"" + Mask + "\nnext"}, // never closed: the line
		// Each quoted string of a list.
		{`"tokens": ["abcd1", "efgh2"], "n": 1`, `"tokens": ["` + Mask + `", "` + Mask + `"], "n": 1`},
		{`\"tokens\":[\"abcd1\",\"efgh2\"]`, `\"tokens\":[\"` + Mask + `\",\"` + Mask + `\"]`},
		{`"tokens": [12, "abcd"]`, `"tokens": [12, "abcd"]`}, // not a list of strings
		{`"tokens": []`, `"tokens": []`},
		{`"tokens": ["abc", "abcd"`, `"tokens": ["abc", "` + Mask + `"`},
	}
	for _, tt := range tests {
		masked(t, tt.in, tt.want)
	}
}

func TestIsSecretNameEveryWord(t *testing.T) {
	for _, w := range SecretNameWords() {
		lower := strings.ToLower(w)
		for _, name := range []string{w, lower, "MY_" + w + "_FILE", "x-" + lower, spread(w, "_"), spread(lower, "-"), mixCase(lower)} {
			if !IsSecretName(name) {
				t.Errorf("IsSecretName(%q) = false (word %s)", name, w)
			}
		}
	}
	for _, name := range []string{"OPENAI_API_KEY", "ODEK_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
		"DB_PASSWORD", "PGPASSWD", "GPG_PASSPHRASE", "SESSION_COOKIE", "GOOGLE_APPLICATION_CREDENTIALS", "NPM_CREDS",
		"SSH_PRIVATE_KEY", "HTTP_AUTHORIZATION", "PASS_WORD_LIST", strings.Repeat("A", 300) + "_TOKEN"} {
		if !IsSecretName(name) {
			t.Errorf("IsSecretName(%q) = false", name)
		}
	}
	for _, name := range []string{"", "PATH", "HOME", "LANG", "TERM", "KEYBOARD", "MONKEY", "PASSWORT", "API", "TOKE", "SECRE",
		"A" + strings.Repeat("-", 300)} {
		if IsSecretName(name) {
			t.Errorf("IsSecretName(%q) = true", name)
		}
	}
}

// spread puts sep between the bytes of w: A_P_I_K_E_Y still reads APIKEY.
func spread(w, sep string) string {
	return strings.Join(strings.Split(w, ""), sep)
}
