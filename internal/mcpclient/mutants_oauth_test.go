package mcpclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// oauthPeer is a modern MCP server behind OAuth on one loopback listener,
// with every document its test gives: docs maps a path to a JSON body
// ("{base}" stands for the server's URL; a path not in it is a 404). The
// token endpoint (/token) checks the client's secret (Basic or in the
// form) and answers with token(n), n the token's number from 1; the MCP
// endpoint (/mcp) wants a token it issued and not yet revoked, and
// answers a 401 with challenge ("{base}" replaced) otherwise.
type oauthPeer struct {
	t         *testing.T
	srv       *httptest.Server
	docs      map[string]string
	secret    string
	challenge string
	token     func(n int) string // the token endpoint's 200 body; nil: a Bearer token living an hour
	// reply, when set, is the token endpoint's whole answer instead, to
	// any request; a token "tok-x" is then valid.
	reply func() (int, string)
	// hold401 makes that many refused MCP requests wait for one another
	// before they get their 401 (two calls whose token was refused at once).
	hold401 int

	mu      sync.Mutex
	fail    int          // token requests still to refuse with a 503
	seen    []string     // MCP requests: "<method> <Authorization>"
	gets    []string     // metadata paths asked for, in order
	forms   []url.Values // token requests' forms
	basic   []bool       // whether each token request used Basic
	issued  int
	valid   map[string]bool
	held    int
	release chan struct{}
}

func newOAuthPeer(t *testing.T, docs map[string]string) *oauthPeer {
	p := &oauthPeer{t: t, docs: docs, secret: "peer-secret-5150", valid: map[string]bool{}, release: make(chan struct{})}
	p.challenge = `Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"`
	p.srv = httptest.NewServer(p)
	t.Cleanup(p.srv.Close)
	return p
}

// standardDocs are the metadata of a server whose 401 names its resource
// metadata, with the authorization server at {base}/as.
func standardDocs() map[string]string {
	return map[string]string{
		"/.well-known/oauth-protected-resource/mcp":  `{"resource":"{base}/mcp","authorization_servers":["{base}/as"]}`,
		"/.well-known/oauth-authorization-server/as": `{"issuer":"{base}/as","token_endpoint":"{base}/token"}`,
	}
}

func (p *oauthPeer) base(s string) string { return strings.ReplaceAll(s, "{base}", p.srv.URL) }

func (p *oauthPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/token":
		p.tokenEndpoint(w, r, body)
		return
	case "/mcp":
		p.mcp(w, r, body)
		return
	}
	p.mu.Lock()
	p.gets = append(p.gets, r.URL.Path)
	doc, ok := p.docs[r.URL.Path]
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = io.WriteString(w, p.base(doc))
}

func (p *oauthPeer) tokenEndpoint(w http.ResponseWriter, r *http.Request, body []byte) {
	form, _ := url.ParseQuery(string(body))
	id, sec, basic := r.BasicAuth()
	if !basic {
		id, sec = form.Get("client_id"), form.Get("client_secret")
	}
	if form.Get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" && form.Get("client_assertion") != "" {
		id, sec = "ci", p.secret // jwt_test.go checks the signature; here only that one was sent
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forms = append(p.forms, form)
	p.basic = append(p.basic, basic)
	if p.fail > 0 {
		p.fail--
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if p.reply != nil {
		code, body := p.reply()
		p.valid["tok-x"] = true
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
		return
	}
	if id != "ci" || sec != p.secret || form.Get("grant_type") != "client_credentials" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":"invalid_client"}`)
		return
	}
	p.issued++
	tok := fmt.Sprintf("tok-%d", p.issued)
	p.valid[tok] = true
	reply := fmt.Sprintf(`{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, tok)
	if p.token != nil {
		reply = p.token(p.issued)
	}
	_, _ = io.WriteString(w, reply)
}

func (p *oauthPeer) mcp(w http.ResponseWriter, r *http.Request, body []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	auth := r.Header.Get("Authorization")
	p.mu.Lock()
	p.seen = append(p.seen, m.Method+" "+auth)
	ok := p.valid[strings.TrimPrefix(auth, "Bearer ")]
	var wait chan struct{}
	if !ok && p.hold401 > 0 && m.Method == "tools/call" {
		p.held++
		wait = p.release
		if p.held == p.hold401 {
			close(p.release)
		}
	}
	p.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-time.After(10 * time.Second):
			p.t.Errorf("only %d of %d refused calls arrived together", p.held, p.hold401)
		}
	}
	if !ok {
		w.Header().Set("WWW-Authenticate", p.base(p.challenge))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	switch m.Method {
	case "server/discover":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`, m.ID)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}}`, m.ID)
	default:
		text, _ := json.Marshal(auth)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, m.ID, text)
	}
}

// sentAuth calls the peer's tool and returns the Authorization header the
// call carried, which the tool answers with (fenced as untrusted).
func sentAuth(t *testing.T, c *Client) string {
	t.Helper()
	lines := strings.Split(whoami(t, c), "\n")
	if len(lines) != 3 {
		t.Fatalf("whoami answered %q", lines)
	}
	return lines[1]
}

func (p *oauthPeer) revoke() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.valid = map[string]bool{}
}

func (p *oauthPeer) tokensIssued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.issued
}

func (p *oauthPeer) tokenRequests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.forms)
}

func (p *oauthPeer) metadataGets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.gets...)
}

// connect opens and discovers the peer with o (ClientID "ci" and the
// peer's secret in $S unless o says otherwise).
// mustConnect is connect with the default client settings, failing the
// test if the connection or discovery fails.
func (p *oauthPeer) mustConnect(t *testing.T) *Client {
	t.Helper()
	c, err := p.connect(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (p *oauthPeer) connect(t *testing.T, o *OAuthConfig) (*Client, error) {
	t.Helper()
	if o == nil {
		o = &OAuthConfig{ClientID: "ci", ClientSecretEnv: "S"}
	}
	lookup := func(k string) (string, bool) { return p.secret, k == "S" }
	c, err := Connect(context.Background(), "api", ServerConfig{URL: p.srv.URL + "/mcp", OAuth: o}, Options{LookupEnv: lookup})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Discover(ctx)
	return c, err
}

// When the 401 names no resource metadata, odek reads the well-known URI
// with the MCP URL's path inserted, then the one at the root; of the
// authorization server's metadata, RFC 8414's, then OpenID discovery's
// (the issuer's path after the well-known name, then before it). Each is
// found where the peer has only that one, and the search stops at the
// first found.
func TestOAuthMetadataSearchOrder(t *testing.T) {
	t.Parallel()
	prmPath := `{"resource":"{base}/mcp","authorization_servers":["{base}/as"]}`
	as := `{"issuer":"{base}/as","token_endpoint":"{base}/token"}`
	for _, tc := range []struct {
		name string
		docs map[string]string
		gets string // the metadata paths odek asked for, in order
	}{
		{"resource metadata with the path", map[string]string{
			"/.well-known/oauth-protected-resource/mcp":  prmPath,
			"/.well-known/oauth-authorization-server/as": as,
		}, "/.well-known/oauth-protected-resource/mcp,/.well-known/oauth-authorization-server/as"},
		{"resource metadata at the root", map[string]string{
			"/.well-known/oauth-protected-resource":      prmPath,
			"/.well-known/oauth-authorization-server/as": as,
		}, "/.well-known/oauth-protected-resource/mcp,/.well-known/oauth-protected-resource,/.well-known/oauth-authorization-server/as"},
		{"OpenID discovery, the path after", map[string]string{
			"/.well-known/oauth-protected-resource/mcp": prmPath,
			"/.well-known/openid-configuration/as":      as,
		}, "/.well-known/oauth-protected-resource/mcp,/.well-known/oauth-authorization-server/as,/.well-known/openid-configuration/as"},
		{"OpenID discovery, the path before", map[string]string{
			"/.well-known/oauth-protected-resource/mcp": prmPath,
			"/as/.well-known/openid-configuration":      as,
		}, "/.well-known/oauth-protected-resource/mcp,/.well-known/oauth-authorization-server/as,/.well-known/openid-configuration/as,/as/.well-known/openid-configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newOAuthPeer(t, tc.docs)
			p.challenge = `Bearer realm="mcp"`
			c := p.mustConnect(t)
			if got := sentAuth(t, c); got != "Bearer tok-1" {
				t.Errorf("call: %q", got)
			}
			if got := strings.Join(p.metadataGets(), ","); got != tc.gets {
				t.Errorf("metadata read: %s\nwant %s", got, tc.gets)
			}
		})
	}
}

// An issuer at the root of its host: the root's well-known URIs only, and
// the issuer in the metadata may end in "/" as the protected resource
// metadata named it or not.
func TestOAuthIssuerAtTheRoot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ named, issuer string }{
		{"{base}", "{base}/"},
		{"{base}/", "{base}"},
	} {
		p := newOAuthPeer(t, map[string]string{
			"/.well-known/oauth-protected-resource/mcp": `{"resource":"{base}/mcp","authorization_servers":["` + tc.named + `"]}`,
			"/.well-known/openid-configuration":         `{"issuer":"` + tc.issuer + `","token_endpoint":"{base}/token"}`,
		})
		c, err := p.connect(t, nil)
		if err != nil {
			t.Fatalf("issuer %s named as %s: %v", tc.issuer, tc.named, err)
		}
		if got := sentAuth(t, c); got != "Bearer tok-1" {
			t.Errorf("call: %q", got)
		}
		want := "/.well-known/oauth-protected-resource/mcp,/.well-known/oauth-authorization-server,/.well-known/openid-configuration"
		if got := strings.Join(p.metadataGets(), ","); got != want {
			t.Errorf("metadata read: %s\nwant %s", got, want)
		}
	}
}

// Metadata odek cannot use stops the login before a token request, with
// an error that says what is wrong: no authorization server, no token
// endpoint, a grant list without client_credentials, an issuer that is
// not a URL, a resource that is not a URL or not above the MCP URL, a
// document that is not JSON, or none found at all.
func TestOAuthUnusableMetadata(t *testing.T) {
	t.Parallel()
	as := `{"issuer":"{base}/as","token_endpoint":"{base}/token"}`
	prm := func(resource string) string {
		return `{"resource":"` + resource + `","authorization_servers":["{base}/as"]}`
	}
	for _, tc := range []struct {
		name    string
		prm, as string
		want    string
	}{
		{"no authorization servers", `{"resource":"{base}/mcp","authorization_servers":[]}`, as, "names no authorization_servers"},
		{"an authorization server that is not a URL", `{"resource":"{base}/mcp","authorization_servers":["as.example"]}`, as, `authorization server "as.example" is not a URL`},
		{"no token endpoint", prm("{base}/mcp"), `{"issuer":"{base}/as"}`, "/.well-known/oauth-authorization-server/as has no token_endpoint"},
		{"no client_credentials grant", prm("{base}/mcp"), `{"issuer":"{base}/as","token_endpoint":"{base}/token","grant_types_supported":["authorization_code"]}`,
			"does not offer the client_credentials grant"},
		{"an empty resource", prm(""), as, `resource "" is not a URL`},
		{"a resource that does not parse", prm("http://[::1"), as, `resource "http://[::1" is not a URL`},
		{"a resource beside the MCP URL", prm("{base}/mc"), as, `is not the server`},
		{"a resource below the MCP URL", prm("{base}/mcp/admin"), as, `is not the server`},
		{"a resource on another port", prm("http://127.0.0.1:1/mcp"), as, `is not the server`},
		{"a resource over another scheme", prm("https://{host}/mcp"), as, `is not the server`},
		{"not JSON", `{"resource":`, as, "not JSON metadata"},
		{"no metadata", "", as, "http 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs := map[string]string{"/.well-known/oauth-authorization-server/as": tc.as}
			if tc.prm != "" {
				docs["/.well-known/oauth-protected-resource/mcp"] = tc.prm
			}
			p := newOAuthPeer(t, docs)
			if tc.prm != "" {
				host := strings.TrimPrefix(p.srv.URL, "http://")
				docs["/.well-known/oauth-protected-resource/mcp"] = strings.ReplaceAll(tc.prm, "{host}", host)
			}
			_, err := p.connect(t, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %s", err, tc.want)
			}
			if n := p.tokenRequests(); n != 0 {
				t.Errorf("%d token requests after unusable metadata", n)
			}
		})
	}
}

// setClock moves the login's clock by d from now on.
func setClock(c *Client, d time.Duration) {
	l := c.http.oauth
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = func() time.Time { return time.Now().Add(d) }
}

// A token is used until shortly before its expires_in runs out: a tenth
// of its life before, at most 30 seconds. A token without an expiry (no
// expires_in, 0 or negative) is kept whatever the clock says, until the
// server refuses it.
func TestOAuthTokenLifetime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		expiresIn string // the member as sent, "" for none
		keep      time.Duration
		refresh   time.Duration // 0: never before a 401
	}{
		{"100 s: refreshed 10 s before", `,"expires_in":100`, 89 * time.Second, 91 * time.Second},
		{"an hour: refreshed 30 s before", `,"expires_in":3600`, 3569 * time.Second, 3571 * time.Second},
		{"no expires_in", "", 1000 * time.Hour, 0},
		{"expires_in 0", `,"expires_in":0`, 1000 * time.Hour, 0},
		{"a negative expires_in", `,"expires_in":-5`, 1000 * time.Hour, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newOAuthPeer(t, standardDocs())
			p.token = func(n int) string {
				return fmt.Sprintf(`{"access_token":"tok-%d","token_type":"bearer"%s}`, n, tc.expiresIn)
			}
			c := p.mustConnect(t)
			setClock(c, tc.keep)
			if got := sentAuth(t, c); got != "Bearer tok-1" {
				t.Errorf("%v later: %q, want the first token still", tc.keep, got)
			}
			want := "Bearer tok-1"
			if tc.refresh > 0 {
				setClock(c, tc.refresh)
				want = "Bearer tok-2"
			}
			if got := sentAuth(t, c); got != want {
				t.Errorf("%v later: %q, want %q", tc.refresh, got, want)
			}
			p.revoke()
			if got := sentAuth(t, c); got == want || !strings.HasPrefix(got, "Bearer tok-") {
				t.Errorf("after the server refused %s: %q, want a new token", want, got)
			}
		})
	}
}

// Two calls whose token the server refuses at once: the first fetches a
// new token, the second finds it already replaced and uses it without a
// token request of its own.
func TestOAuthConcurrentRefusalsFetchOnce(t *testing.T) {
	t.Parallel()
	p := newOAuthPeer(t, standardDocs())
	c := p.mustConnect(t)
	p.revoke()
	p.mu.Lock()
	p.hold401 = 2
	p.mu.Unlock()
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r, err := c.callToolResult(ctx, "whoami", json.RawMessage(`{}`))
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			got[i] = r.Text
		}()
	}
	wg.Wait()
	for i, g := range got {
		if !strings.Contains(g, "\nBearer tok-2\n") {
			t.Errorf("call %d carried %q, want tok-2", i, g)
		}
	}
	if n := p.tokensIssued(); n != 2 {
		t.Errorf("%d tokens issued, want 2 (the first, and one after the refusals)", n)
	}
}

// The scope asked for: the configured one, else the one the 401 named,
// else every scope the protected resource metadata lists, else none.
func TestOAuthScopeChoice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, cfg, challenge, supported string
		want                            string // the form's scope; "-" for none
	}{
		{"configured", "repo:read", `, scope="mcp:tools"`, `,"scopes_supported":["a","b"]`, "repo:read"},
		{"the 401's", "", `, scope="mcp:tools"`, `,"scopes_supported":["a","b"]`, "mcp:tools"},
		{"the metadata's", "", "", `,"scopes_supported":["a","b"]`, "a b"},
		{"none", "", "", "", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs := standardDocs()
			docs["/.well-known/oauth-protected-resource/mcp"] = `{"resource":"{base}/mcp","authorization_servers":["{base}/as"]` + tc.supported + `}`
			p := newOAuthPeer(t, docs)
			p.challenge += tc.challenge
			if _, err := p.connect(t, &OAuthConfig{ClientID: "ci", ClientSecretEnv: "S", Scope: tc.cfg}); err != nil {
				t.Fatal(err)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.forms) != 1 {
				t.Fatalf("%d token requests", len(p.forms))
			}
			got := p.forms[0].Get("scope")
			if _, ok := p.forms[0]["scope"]; !ok {
				got = "-"
			}
			if got != tc.want || p.forms[0].Get("resource") != p.srv.URL+"/mcp" {
				t.Errorf("token request %v, want scope %q and the resource", p.forms[0], tc.want)
			}
		})
	}
}

// How the client authenticates at the token endpoint follows the methods
// the authorization server lists: Basic when it lists none or
// client_secret_basic, the form when it lists only client_secret_post,
// and an error naming what it lists when neither; a key's assertion only
// with an algorithm the server accepts.
func TestOAuthClientAuthMethods(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, methods string
		basic         bool
		err           string
	}{
		{"none listed", ``, true, ""},
		{"basic and post", `,"token_endpoint_auth_methods_supported":["client_secret_post","client_secret_basic"]`, true, ""},
		{"post only", `,"token_endpoint_auth_methods_supported":["client_secret_post"]`, false, ""},
		{"neither", `,"token_endpoint_auth_methods_supported":["tls_client_auth","private_key_jwt"]`, false,
			"accepts none of client_secret_basic, client_secret_post (it lists tls_client_auth, private_key_jwt)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs := standardDocs()
			docs["/.well-known/oauth-authorization-server/as"] = `{"issuer":"{base}/as","token_endpoint":"{base}/token"` + tc.methods + `}`
			p := newOAuthPeer(t, docs)
			c, err := p.connect(t, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || p.tokenRequests() != 0 {
					t.Fatalf("err = %v, %d token requests; want %q and none", err, p.tokenRequests(), tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sentAuth(t, c); got != "Bearer tok-1" {
				t.Errorf("call: %q", got)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			f := p.forms[0]
			inForm := f.Get("client_id") == "ci" && f.Get("client_secret") == p.secret
			if p.basic[0] != tc.basic || inForm == tc.basic {
				t.Errorf("Basic %v, secret in the form %v; want Basic %v", p.basic[0], inForm, tc.basic)
			}
		})
	}
}

// An ECDSA P-256 key is not used with an authorization server whose
// metadata lists only other signing algorithms.
func TestOAuthAssertionAlgorithmRefused(t *testing.T) {
	t.Parallel()
	file := ecKeyFile(t)
	docs := standardDocs()
	docs["/.well-known/oauth-authorization-server/as"] = `{"issuer":"{base}/as","token_endpoint":"{base}/token",
		"token_endpoint_auth_signing_alg_values_supported":["RS256","EdDSA"]}`
	p := newOAuthPeer(t, docs)
	_, err := p.connect(t, &OAuthConfig{ClientID: "ci", PrivateKeyFile: file})
	if err == nil || !strings.Contains(err.Error(), "accepts assertions signed with RS256, EdDSA, not ES256") || p.tokenRequests() != 0 {
		t.Errorf("err = %v, %d token requests; want the algorithms named and none", err, p.tokenRequests())
	}
}

// What the token endpoint's refusal says reaches the operator: the OAuth
// error with its description, the error alone, or the HTTP status when
// the body names no error; an answer that is no Bearer token is refused,
// while "bearer" in any case is one.
func TestOAuthTokenEndpointAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, status, body, want string
	}{
		{"error and description", "400", `{"error":"invalid_scope","error_description":"no such scope"}`, "refused odek's client credentials: invalid_scope (no such scope);"},
		{"error alone", "400", `{"error":"invalid_scope"}`, "refused odek's client credentials: invalid_scope;"},
		{"no error", "503", `busy`, "refused odek's client credentials: http 503;"},
		{"no access_token", "200", `{"token_type":"Bearer"}`, `want a Bearer access_token, got token_type "Bearer"`},
		{"lower-case bearer", "200", `{"access_token":"tok-x","token_type":"bearer"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newOAuthPeer(t, standardDocs())
			p.reply = func() (int, string) {
				return map[string]int{"200": 200, "400": 400, "503": 503}[tc.status], tc.body
			}
			c, err := p.connect(t, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := sentAuth(t, c); got != "Bearer tok-x" {
					t.Errorf("call: %q", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant it to contain %s", err, tc.want)
			}
		})
	}
}

// ecKeyFile writes a new ECDSA P-256 key as a PEM file and returns its path.
func ecKeyFile(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(file, pemOf(t, key), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// A client secret file is read up to 64 KiB: one of exactly that size
// logs in, one a byte longer and one of only blanks fail the start with a
// setup error naming the file.
func TestOAuthSecretFileBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, err string
	}{
		{"exactly the bound", strings.Repeat("k", maxKeyFile), ""},
		{"a byte over", strings.Repeat("k", maxKeyFile+1), fmt.Sprintf("is over %d bytes", maxKeyFile)},
		{"blank", " \n\t\n", "is empty"},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		if err := os.WriteFile(file, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		p := newOAuthPeer(t, standardDocs())
		p.secret = strings.TrimSpace(tc.content)
		c, err := p.connect(t, &OAuthConfig{ClientID: "ci", ClientSecretFile: file})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), file) {
				t.Errorf("%s: err = %v, want %q naming the file", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := sentAuth(t, c); got != "Bearer tok-1" {
			t.Errorf("%s: call %q", tc.name, got)
		}
	}
}

// OAuth requests go over https, or plain http to this machine only.
func TestSecureURL(t *testing.T) {
	t.Parallel()
	for raw, ok := range map[string]bool{
		"https://as.example/token":          true,
		"http://localhost:8080/token":       true,
		"http://127.0.0.1/token":            true,
		"http://127.9.9.9/token":            true,
		"http://[::1]:80/token":             true,
		"http://10.0.0.1/token":             false,
		"http://localhost.evil.example/tok": false,
		"http://as.example/token":           false,
		"ftp://localhost/token":             false,
		"/token":                            false,
		"https:///token":                    false,
	} {
		if err := secureURL(raw); (err == nil) != ok {
			t.Errorf("secureURL(%q) = %v, want allowed %v", raw, err, ok)
		}
	}
}

// A Bearer challenge's resource_metadata and scope are read whatever the
// case of their names, the spaces around them and the other parameters.
func TestParseChallenge(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]challenge{
		`Bearer resource_metadata="https://x/m", scope="a b"`:             {metadata: "https://x/m", scope: "a b"},
		`Bearer error="invalid_token",  Scope = "s" ,RESOURCE_METADATA=u`: {metadata: "u", scope: "s"},
		`Bearer realm="mcp"`:     {},
		`Basic realm="x", scope`: {},
		``:                       {},
	} {
		if got := parseChallenge(h); got != want {
			t.Errorf("parseChallenge(%q) = %+v, want %+v", h, got, want)
		}
	}
}

// A resource above or at the MCP URL, with or without a trailing slash,
// is this server's.
func TestOAuthResourceAboveTheEndpoint(t *testing.T) {
	t.Parallel()
	for _, resource := range []string{"{base}", "{base}/", "{base}/mcp", "{base}/mcp/"} {
		docs := standardDocs()
		docs["/.well-known/oauth-protected-resource/mcp"] = `{"resource":"` + resource + `","authorization_servers":["{base}/as"]}`
		p := newOAuthPeer(t, docs)
		c, err := p.connect(t, nil)
		if err != nil {
			t.Fatalf("resource %s: %v", resource, err)
		}
		if got := sentAuth(t, c); got != "Bearer tok-1" {
			t.Errorf("resource %s: call %q", resource, got)
		}
	}
}

// Once the server asked for a token, every request carries one: after a
// refresh that failed (the token endpoint down when the server refused the
// old token), the next call fetches a token first instead of going out
// without one.
func TestOAuthNoRequestWithoutATokenAfterAFailedRefresh(t *testing.T) {
	t.Parallel()
	p := newOAuthPeer(t, standardDocs())
	c := p.mustConnect(t)
	p.revoke()
	p.mu.Lock()
	p.fail = 1
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.callToolResult(ctx, "whoami", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "http 503") {
		t.Fatalf("a call while the token endpoint is down: %v, want its 503", err)
	}
	p.mu.Lock()
	p.seen = nil
	p.mu.Unlock()
	if got := sentAuth(t, c); got != "Bearer tok-2" {
		t.Errorf("the next call: %q", got)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.seen) != 1 || p.seen[0] != "tools/call Bearer tok-2" {
		t.Errorf("the MCP server saw %q, want one tools/call with the new token", p.seen)
	}
}

// A key's assertion is sent when the authorization server's metadata
// restricts neither the client authentication methods nor the signing
// algorithms.
func TestOAuthAssertionUnrestricted(t *testing.T) {
	t.Parallel()
	p := newOAuthPeer(t, standardDocs())
	c, err := p.connect(t, &OAuthConfig{ClientID: "ci", PrivateKeyFile: ecKeyFile(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := sentAuth(t, c); got != "Bearer tok-1" {
		t.Errorf("call: %q", got)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.forms) != 1 || p.basic[0] || p.forms[0].Get("client_assertion") == "" || p.forms[0].Get("client_secret") != "" {
		t.Errorf("token requests %v (Basic %v), want one with an assertion and no secret", p.forms, p.basic)
	}
}

// A refusal of a key's assertion reads as the token endpoint wrote it and
// names the key file: with no secret to mask, nothing is masked.
func TestOAuthAssertionRefusedPlainly(t *testing.T) {
	t.Parallel()
	file := ecKeyFile(t)
	p := newOAuthPeer(t, standardDocs())
	p.reply = func() (int, string) {
		return http.StatusUnauthorized, `{"error":"invalid_client","error_description":"unknown key"}`
	}
	_, err := p.connect(t, &OAuthConfig{ClientID: "ci", PrivateKeyFile: file})
	want := "refused odek's client credentials: invalid_client (unknown key); check mcp_servers.api.oauth (client_id \"ci\" and the key in " + file + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v\nwant it to contain %s", err, want)
	}
}

// A metadata document of exactly 64 KiB is read; one byte more is
// refused (TestOAuthRefusesUntrueMetadata).
func TestOAuthMetadataOfExactlyTheBound(t *testing.T) {
	t.Parallel()
	docs := standardDocs()
	p := newOAuthPeer(t, docs)
	prm := p.base(docs["/.well-known/oauth-protected-resource/mcp"])
	p.mu.Lock()
	docs["/.well-known/oauth-protected-resource/mcp"] = strings.TrimSuffix(prm, "}") + strings.Repeat(" ", maxMetadata-len(prm)) + "}"
	p.mu.Unlock()
	c, err := p.connect(t, nil)
	if err != nil {
		t.Fatalf("resource metadata of %d bytes: %v", maxMetadata, err)
	}
	if got := sentAuth(t, c); got != "Bearer tok-1" {
		t.Errorf("call: %q", got)
	}
}
