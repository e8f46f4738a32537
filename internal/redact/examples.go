package redact

import "strings"

// Example is one secret of a shape String masks, for the tests of code that
// must never write one (cassettes, sessions, events): Text holds the secret
// in the context its shape needs ("DEPLOY_TOKEN=…", a URL), Secret is the
// part that must not survive String(Text).
type Example struct {
	Name, Text, Secret string
}

// Examples returns one secret of every shape String masks: each provider
// key prefix, JWTs, webhook URLs, Authorization credentials, a private key
// block, URL passwords and token user names, labelled values (key=value,
// a JSON member, an escaped JSON member) and a bare AWS secret key. The
// registered literals are not among them: they are whatever the caller
// registers. TestExamplesCoverEveryShape keeps the list whole.
func Examples() []Example {
	alnum := func(seed string, n int) string { return strings.Repeat(seed, n/len(seed)+1)[:n] }
	token := func(name, prefix, seed string, n int) Example {
		s := prefix + alnum(seed, n)
		return Example{Name: name, Text: s, Secret: s}
	}
	return []Example{
		token("openai key", "sk-proj-", "Q7wE9rT1yU3iO5pA", 20),
		token("github personal token", "ghp_", "R8tY6uI4oP2aS0dF", 24),
		token("github oauth token", "gho_", "Z1xC3vB5nM7qW9eR", 24),
		token("github user token", "ghu_", "K2jH4gF6dS8aL0pO", 24),
		token("github server token", "ghs_", "M3nB5vC7xZ9lK1jH", 24),
		token("github refresh token", "ghr_", "P4oI6uY8tR0eW2qA", 24),
		token("github fine-grained token", "github_pat_", "11AbCdEf22GhIjKl_", 40),
		token("aws access key id", "AKIA", "Q7W3E5R7T9Y1U3I5", 16),
		token("aws session key id", "ASIA", "Z2X4C6V8B0N2M4L6", 16),
		token("slack token", "xoxb-", "1234567890-Ab3Cd4", 24),
		token("google api key", "AIza", "SyQ7w-E9rT1yU3iO5pA2", 35),
		token("gitlab token", "glpat-", "Hk7Lm9Np1Qr3St5Vw", 20),
		token("npm token", "npm_", "Tq2Wr4Ey6Ui8Op0As", 36),
		{Name: "jwt", Text: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNhbXBsZQ",
			Secret: "c2lnbmF0dXJlLXNhbXBsZQ"},
		{Name: "slack webhook", Text: "https://hooks.slack.com/services/T0AAA1BBB/B0CCC2DDD/Xy7Zq8Wv6Ut5Sr4Qp3",
			Secret: "Xy7Zq8Wv6Ut5Sr4Qp3"},
		{Name: "discord webhook", Text: "https://discord.com/api/webhooks/123456789/Dc9Bx8Aw7Zv6Yu5Xt4Ws3",
			Secret: "Dc9Bx8Aw7Zv6Yu5Xt4Ws3"},
		{Name: "bearer credential", Text: "Authorization: Bearer Hn4Jm5Kl6Pq7Rs8Tu9", Secret: "Hn4Jm5Kl6Pq7Rs8Tu9"},
		{Name: "basic credential", Text: "Authorization: Basic dXNlcjpzM2NyZXQtYmFzaWM=", Secret: "dXNlcjpzM2NyZXQtYmFzaWM="},
		{Name: "private key block",
			Text:   "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAPemBodyLine0001\n-----END RSA PRIVATE KEY-----",
			Secret: "MIIEowIBAAKCAQEAPemBodyLine0001"},
		{Name: "url password", Text: "postgres://app:Pg5Pass6Word7@db:5432/app", Secret: "Pg5Pass6Word7"},
		{Name: "url token user", Text: "https://5f4dcc3b5aa765d61d8327deb882cf99@o12.ingest.sentry.io/34",
			Secret: "5f4dcc3b5aa765d61d8327deb882cf99"},
		{Name: "labelled value", Text: "DEPLOY_TOKEN=Kv1Lw2Mx3Ny4Oz5", Secret: "Kv1Lw2Mx3Ny4Oz5"},
		{Name: "json member", Text: `{"password": "Js0nPassw0rdValue"}`, Secret: "Js0nPassw0rdValue"},
		{Name: "escaped json member", Text: `{\"client_secret\":\"Esc4ped5Secret6\"}`, Secret: "Esc4ped5Secret6"},
		{Name: "aws secret key", Text: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", Secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	}
}
