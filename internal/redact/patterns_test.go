package redact

import (
	"strings"
	"testing"
)

func masked(t *testing.T, in, want string) {
	t.Helper()
	if got := String(in); got != want {
		t.Errorf("String(%q)\n   = %q\nwant %q", in, got, want)
	}
}

// Every provider key shape, at its minimum length (masked) and one short
// (kept), alone, inside a tool name (srv__<key>, the events tool field) and
// glued to a letter (not a key).
func TestTokenPatterns(t *testing.T) {
	alnum := func(n int) string { return strings.Repeat("aB3", n)[:n] }
	upper := func(n int) string { return strings.Repeat("A7Z", n)[:n] }
	tests := []struct {
		name       string
		key, short string
	}{
		{"sk", "sk-" + alnum(16), "sk-" + alnum(15)},
		{"sk project", "sk-proj-" + alnum(11), "sk-proj-" + alnum(10)},
		{"ghp", "ghp_" + alnum(20), "ghp_" + alnum(19)},
		{"gho", "gho_" + alnum(20), "gho_" + alnum(19)},
		{"ghu", "ghu_" + alnum(20), "ghu_" + alnum(19)},
		{"ghs", "ghs_" + alnum(20), "ghs_" + alnum(19)},
		{"ghr", "ghr_" + alnum(20), "ghr_" + alnum(19)},
		{"github_pat", "github_pat_" + alnum(20), "github_pat_" + alnum(19)},
		{"AKIA", "AKIA" + upper(16), "AKIA" + upper(15)},
		{"ASIA", "ASIA" + upper(16), "ASIA" + upper(15)},
		{"xoxa", "xoxa-" + alnum(10), "xoxa-" + alnum(9)},
		{"xoxb", "xoxb-" + alnum(10), "xoxb-" + alnum(9)},
		{"xoxp", "xoxp-" + alnum(10), "xoxp-" + alnum(9)},
		{"xoxr", "xoxr-" + alnum(10), "xoxr-" + alnum(9)},
		{"xoxs", "xoxs-" + alnum(10), "xoxs-" + alnum(9)},
		{"AIza", "AIza" + alnum(35), "AIza" + alnum(34)},
		{"glpat", "glpat-" + alnum(20), "glpat-" + alnum(19)},
		{"npm", "npm_" + alnum(36), "npm_" + alnum(35)},
		{"jwt", "eyJ" + alnum(8) + ".eyJ" + alnum(8) + "." + alnum(8), "eyJ" + alnum(8) + ".eyJ" + alnum(8) + "." + alnum(7)},
		{"slack webhook", "hooks.slack.com/services/T0/B0/" + alnum(24), "hooks.slack.com/services/" + alnum(7)},
		{"discord webhook", "discord.com/api/webhooks/123/" + alnum(30), "discord.com/api/webhooks/123/" + alnum(7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			masked(t, tt.key, Mask)
			masked(t, "use "+tt.key+" now", "use "+Mask+" now")
			masked(t, "srv__"+tt.key, "srv__"+Mask)
			masked(t, "("+tt.key+")", "("+Mask+")")
			masked(t, tt.short, tt.short)
			masked(t, "srv__"+tt.short, "srv__"+tt.short)
			masked(t, "x"+tt.key, "x"+tt.key)
			masked(t, "9"+tt.key, "9"+tt.key)
		})
	}
	masked(t, "task-"+strings.Repeat("abcd", 5), "task-"+strings.Repeat("abcd", 5))
	masked(t, "xoxq-"+alnum(12), "xoxq-"+alnum(12))
	masked(t, "AKIA"+strings.Repeat("a", 16), "AKIA"+strings.Repeat("a", 16)) // lower case is not a key id
}

func TestAuthorizationCredentials(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Authorization: Bearer abcdefgh", "Authorization: Bearer " + Mask},
		{"authorization: bearer abc.def-ghi_jkl~m+n/o=", "authorization: bearer " + Mask},
		{"BEARER\tabcdefgh", "BEARER\t" + Mask},
		{"Basic dXNlcjpwYXNz", "Basic " + Mask},
		{"basic  dXNlcjpwYXNz", "basic  " + Mask},
		{"BASIC dXNlcjpwYXNz", "BASIC " + Mask},
		{"Bearer abcdefg", "Bearer abcdefg"}, // 7: too short to be a credential
		{"Basic ideas", "Basic ideas"},
		{"unbearer abcdefghij", "unbearer abcdefghij"},
	}
	for _, tt := range tests {
		masked(t, tt.in, tt.want)
	}
}

func TestPrivateKeyBlock(t *testing.T) {
	for _, kind := range []string{"RSA ", "EC ", "OPENSSH ", ""} {
		block := "-----BEGIN " + kind + "PRIVATE KEY-----\nMIIE+/=\nabc\n-----END " + kind + "PRIVATE KEY-----"
		masked(t, "a\n"+block+"\nb", "a\n"+Mask+"\nb")
	}
	masked(t, "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----")
}

func TestURLPasswords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:hunter2@example.com/x", "https://user:" + Mask + "@example.com/x"},
		{"DATABASE_URL=postgres://app:s3cr3t@db:5432/app?sslmode=require", "DATABASE_URL=postgres://app:" + Mask + "@db:5432/app?sslmode=require"},
		{`{"url":"mysql://root:pw.with/slash@h/db"}`, `{"url":"mysql://root:` + Mask + `@h/db"}`}, // a raw '/' in the password
		{"https://u:p?w#d@h/x", "https://u:" + Mask + "@h/x"},
		{"https://host:8080/path/@user", "https://host:8080/path/@user"}, // a port, then '@' in the path
		{"https://host:/path/@user", "https://host:/path/@user"},
		{"https://u:p/no-at-sign", "https://u:p/no-at-sign"},
		{"https://u:p", "https://u:p"},
		{"redis://:onlypassword@cache:6379", "redis://:" + Mask + "@cache:6379"},
		{"amqp://u:p@ss:w@rd@mq/", "amqp://u:" + Mask + "@mq/"}, // the last '@' ends userinfo
		{"a https://a:b@h1 and ftp://c:d@h2 end", "a https://a:" + Mask + "@h1 and ftp://c:" + Mask + "@h2 end"},
		{"git clone https://x:ghp_" + strings.Repeat("a", 20) + "@github.com/o/r", "git clone https://x:" + Mask + "@github.com/o/r"},
		{"https://user@example.com/", "https://user@example.com/"}, // no password
		{"https://user:@example.com/", "https://user:@example.com/"},
		{"https://example.com:8080/@me", "https://example.com:8080/@me"}, // '@' in the path
		{"https://example.com/a:b@c", "https://example.com/a:b@c"},
		{"https://example.com?q=a:b@c", "https://example.com?q=a:b@c"},
		{"https://example.com#a:b@c", "https://example.com#a:b@c"},
		{"see http://h:1 or mail me@x", "see http://h:1 or mail me@x"},
		{"<https://u:p@h>", "<https://u:" + Mask + "@h>"},
		{"'https://u:p@h'", "'https://u:" + Mask + "@h'"},
		{"\"https://u:p@h\\\"", "\"https://u:" + Mask + "@h\\\""},
		{"`https://u:p@h`", "`https://u:" + Mask + "@h`"},
		{"https://u:p\n@h", "https://u:p\n@h"},
		{"https://u:p\x7f@h", "https://u:p\x7f@h"},
		{"https://u:" + Mask + "@h", "https://u:" + Mask + "@h"},
		{"://", "://"},
		{"://u:p@h", "://u:" + Mask + "@h"},
		{"a://u:p/x://y@h", "a://u:" + Mask + "@h"}, // a raw "://" in the password is not another URL
		{"https://host:9/p/@me", "https://host:9/p/@me"},
	}
	for _, tt := range tests {
		masked(t, tt.in, tt.want)
	}
}

const awsExample = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

func TestBareAWSSecretKeys(t *testing.T) {
	random := "Zx9/Qw3+Er5Ty7Ui1Op0As2Df4Gh6Jk8Lz/Xc+Vb" // 40, mixed, 36 distinct
	tests := []struct{ in, want string }{
		{awsExample, Mask},
		{"AKIAIOSFODNN7EXAMPLE," + awsExample, Mask + "," + Mask},
		{"aws_secret_access_key\t" + awsExample, "aws_secret_access_key\t" + Mask},
		{"secret key  " + random + "  shared-credentials-file", "secret key  " + Mask + "  shared-credentials-file"},
		{"(" + random + ")", "(" + Mask + ")"},
		{random[:39], random[:39]},                                                               // 39
		{random + "x", random + "x"},                                                             // 41
		{"da39a3ee5e6b4b0d3255bfef95601890afd80709", "da39a3ee5e6b4b0d3255bfef95601890afd80709"}, // sha1, one case
		{"DA39A3EE5E6B4B0D3255BFEF95601890AFD80709", "DA39A3EE5E6B4B0D3255BFEF95601890AFD80709"},
		{"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"}, // no digit
		{"abcdefghijklmnopqrstuvwxyz0123456789abcd", "abcdefghijklmnopqrstuvwxyz0123456789abcd"}, // no upper
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCD", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCD"}, // no lower
		{"Users/John/Documents/Project2/SourceFile", "Users/John/Documents/Project2/SourceFile"}, // a path: 21 distinct
	}
	for _, tt := range tests {
		masked(t, tt.in, tt.want)
	}
	// The distinct-byte threshold at its boundary: 24 different bytes is a key, 23 is not.
	at := distinctRun(minDistinct)
	below := distinctRun(minDistinct - 1)
	masked(t, at, Mask)
	masked(t, below, below)
}

// distinctRun returns a 40-character run mixing cases and digits with
// exactly n different bytes.
func distinctRun(n int) string {
	alphabet := "aB3cD4eF5gH6iJ7kL8mN9oP0qRsTuVwXyZ"
	run := []byte(alphabet[:n])
	for len(run) < awsSecretLen {
		run = append(run, alphabet[len(run)%n])
	}
	return string(run)
}

// Issue 18.6: the credential shapes of the names the shell used to let
// through, by value; and what stays, a git commit hash above all.
func TestIssue18ValueShapes(t *testing.T) {
	hex40 := strings.Repeat("0123456789abcdef", 3)[:40]
	for in, want := range map[string]string{
		"SENTRY_DSN=https://" + hex40[:32] + "@o12.ingest.sentry.io/34":         "SENTRY_DSN=" + Mask,
		"dsn: https://" + hex40[:32] + "@o12.ingest.sentry.io/34":               "dsn: " + Mask,
		"see https://" + hex40[:32] + "@o12.ingest.sentry.io/34":                "see https://" + Mask + "@o12.ingest.sentry.io/34",
		"git clone https://" + hex40 + "@github.com/o/r":                        "git clone https://" + Mask + "@github.com/o/r",
		"git clone https://git@github.com/o/r":                                  "git clone https://git@github.com/o/r",
		"https://first.last.name.here@example.com/":                             "https://first.last.name.here@example.com/",
		"NPM_CONFIG__AUTH=dXNlcjpwYXNzd29yZA==":                                 "NPM_CONFIG__AUTH=" + Mask,
		`{"auths":{"r.io":{"auth":"dXNlcjpwYXNzd29yZA=="}}}`:                    `{"auths":{"r.io":{"auth":"` + Mask + `"}}}`,
		"CI_JOB_JWT=abcd.efgh.ijkl":                                             "CI_JOB_JWT=" + Mask,
		"SLACK_WEBHOOK=https://hooks.slack.com/services/T0/B0/XXXXXXXXXXXXXXXX": "SLACK_WEBHOOK=" + Mask,
		"GOOGLE_MAPS=AIza" + strings.Repeat("x1", 18)[:35]:                      "GOOGLE_MAPS=" + Mask,
		"GH_TOKEN=" + hex40: "GH_TOKEN=" + Mask,
		// A bare 40-hex run is a commit hash far more often than a token.
		"commit " + hex40 + "\nAuthor: A <a@b>":        "commit " + hex40 + "\nAuthor: A <a@b>",
		hex40 + " refs/heads/main":                     hex40 + " refs/heads/main",
		"GIT_AUTHOR_NAME=Ada OAUTH_CLIENT_ID=cli-1234": "GIT_AUTHOR_NAME=Ada OAUTH_CLIENT_ID=cli-1234",
	} {
		masked(t, in, want)
	}
}
