package mcpclient

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
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

// authWorld is an MCP server behind OAuth with its own authorization
// server, all on one loopback listener: protected resource metadata,
// authorization server metadata, a token endpoint issuing numbered
// short-lived tokens, and a modern MCP endpoint that wants one.
type authWorld struct {
	t      *testing.T
	srv    *httptest.Server
	secret string
	pub    crypto.PublicKey // verifies client assertions; nil: secrets only

	mu       sync.Mutex
	issued   int
	valid    map[string]bool
	forms    []string // token requests' forms, assertion signature stripped
	seenMCP  []string // "<method> auth=<Authorization>"
	leaked   []string // requests other than the token endpoint's that carried the secret
	metaAuth int      // metadata requests that carried an Authorization header
	tokens   int      // token requests made

	// lie makes one answer untrue (TestOAuthRefusesUntrueMetadata):
	// "resource", "issuer", "http-token", "token-type", "echo-secret",
	// "huge-metadata", "no-jwt".
	lie string
}

func newAuthWorld(t *testing.T, secret string, pub crypto.PublicKey) *authWorld {
	w := &authWorld{t: t, secret: secret, pub: pub, valid: map[string]bool{}}
	w.srv = httptest.NewServer(w)
	t.Cleanup(w.srv.Close)
	return w
}

func (w *authWorld) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	base := w.srv.URL
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.URL.Path != "/as/token" && (strings.Contains(string(body), w.secret) || strings.Contains(fmt.Sprint(r.Header), w.secret)) {
		w.leaked = append(w.leaked, r.URL.Path)
	}
	rw.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		w.metaAuth += len(r.Header.Values("Authorization"))
		resource := base + "/mcp"
		if w.lie == "resource" {
			resource = "https://other.example/mcp"
		}
		pad := ""
		if w.lie == "huge-metadata" {
			pad = strings.Repeat(" ", maxMetadata) // still valid JSON, but too much of it
		}
		fmt.Fprintf(rw, `{"resource":%q,"authorization_servers":[%q],"scopes_supported":["mcp:tools"]%s}`, resource, base+"/as", pad)
	case "/.well-known/oauth-authorization-server/as":
		w.metaAuth += len(r.Header.Values("Authorization"))
		issuer, tokenURL := base+"/as", base+"/as/token"
		switch w.lie {
		case "issuer":
			issuer = "https://other.example/as"
		case "http-token":
			// plain http to a host that is not this machine; the test
			// resolves nothing: odek must refuse before it connects
			tokenURL = "http://token.invalid/as/token"
		}
		methods := `"client_secret_basic","private_key_jwt"`
		if w.lie == "no-jwt" {
			methods = `"client_secret_basic"`
		}
		fmt.Fprintf(rw, `{"issuer":%q,"token_endpoint":%q,"grant_types_supported":["client_credentials"],
			"token_endpoint_auth_methods_supported":[%s],
			"token_endpoint_auth_signing_alg_values_supported":["ES256","EdDSA"]}`, issuer, tokenURL, methods)
	case "/as/token":
		w.tokens++
		w.token(rw, r, string(body))
	case "/mcp":
		w.mcp(rw, r, body)
	default:
		http.NotFound(rw, r)
	}
}

// token checks the client (Basic secret, or a signed assertion) and issues
// a numbered token that lives two seconds by its expires_in.
func (w *authWorld) token(rw http.ResponseWriter, r *http.Request, body string) {
	form, _ := url.ParseQuery(body)
	ok := false
	if id, sec, basic := r.BasicAuth(); basic {
		ok = id == "ci" && sec == w.secret
	} else if a := form.Get("client_assertion"); a != "" {
		ok = w.verify(a)
		form.Set("client_assertion", "<jwt>")
	}
	w.forms = append(w.forms, form.Encode())
	if _, sec, _ := r.BasicAuth(); w.lie == "echo-secret" {
		rw.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(rw, `{"error":"invalid_client","error_description":"no client has the secret %s"}`, sec)
		return
	}
	if !ok || form.Get("grant_type") != "client_credentials" {
		rw.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(rw, `{"error":"invalid_client","error_description":"client authentication failed"}`)
		return
	}
	w.issued++
	tok := fmt.Sprintf("tok-%d", w.issued)
	w.valid[tok] = true
	tokenType := "Bearer"
	if w.lie == "token-type" {
		tokenType = "mac"
	}
	fmt.Fprintf(rw, `{"access_token":%q,"token_type":%q,"expires_in":2}`, tok, tokenType)
}

// verify checks a client assertion's signature and claims.
func (w *authWorld) verify(jwt string) bool {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 || w.pub == nil {
		return false
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	input := []byte(parts[0] + "." + parts[1])
	switch k := w.pub.(type) {
	case ed25519.PublicKey:
		if !ed25519.Verify(k, input, sig) {
			return false
		}
	case *ecdsa.PublicKey:
		d := sha256.Sum256(input)
		if len(sig) != 64 || !ecdsa.Verify(k, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			return false
		}
	default:
		return false
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss, Sub, Aud, Jti string
		Exp, Iat           int64
	}
	_ = json.Unmarshal(raw, &c)
	return c.Iss == "ci" && c.Sub == "ci" && c.Aud == w.srv.URL+"/as" && c.Jti != "" && c.Exp > time.Now().Unix()
}

// mcp is a modern MCP endpoint that wants a valid token.
func (w *authWorld) mcp(rw http.ResponseWriter, r *http.Request, body []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	auth := r.Header.Get("Authorization")
	w.seenMCP = append(w.seenMCP, m.Method+" auth="+auth)
	if !w.valid[strings.TrimPrefix(auth, "Bearer ")] {
		rw.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`, w.srv.URL))
		rw.WriteHeader(http.StatusUnauthorized)
		return
	}
	switch m.Method {
	case "server/discover":
		fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`, m.ID)
	case "tools/list":
		fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}}`, m.ID)
	default:
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		text, _ := json.Marshal(auth + " caps=" + string(p.Meta["io.modelcontextprotocol/clientCapabilities"]))
		fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, m.ID, text)
	}
}

// revoke makes the server refuse every token issued so far.
func (w *authWorld) revoke() {
	w.mu.Lock()
	w.valid = map[string]bool{}
	w.mu.Unlock()
}

func (w *authWorld) client(t *testing.T, o *OAuthConfig, env map[string]string) (*Client, error) {
	t.Helper()
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c, err := Connect(context.Background(), "api", ServerConfig{URL: w.srv.URL + "/mcp", OAuth: o}, Options{LookupEnv: lookup})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Discover(ctx)
	return c, err
}

func whoami(t *testing.T, c *Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.callToolResult(ctx, "whoami", json.RawMessage(`{}`))
	if err != nil {
		t.Fatalf("whoami: %v", err)
	}
	return r.Text
}

// A client secret from the environment logs odek in: the server's 401
// names its metadata, the token endpoint issues a token for the resource,
// and the token is used until it is about to expire (then fetched again
// before the request) or refused (then fetched once more and the request
// repeated). The secret reaches the token endpoint only.
func TestOAuthClientSecretTokensAreRefreshed(t *testing.T) {
	t.Parallel()
	w := newAuthWorld(t, "s3cret-value-0042", nil)
	c, err := w.client(t, &OAuthConfig{ClientID: "ci", ClientSecretEnv: "API_SECRET"}, map[string]string{"API_SECRET": "s3cret-value-0042"})
	if err != nil {
		t.Fatal(err)
	}
	if got := whoami(t, c); !strings.Contains(got, "Bearer tok-1 caps={\"extensions\":{\"io.modelcontextprotocol/oauth-client-credentials\":{}}}") {
		t.Errorf("first call: %s", got)
	}
	// The token is about to expire by odek's clock: a new one before the call.
	login := c.http.oauth
	login.mu.Lock()
	login.now = func() time.Time { return time.Now().Add(1900 * time.Millisecond) }
	login.mu.Unlock()
	if got := whoami(t, c); !strings.Contains(got, "Bearer tok-2") {
		t.Errorf("after expiry: %s", got)
	}
	login.mu.Lock()
	login.now = time.Now
	login.mu.Unlock()
	// The server refuses it early (rotated keys): one 401, a new token, the call repeated.
	w.revoke()
	if got := whoami(t, c); !strings.Contains(got, "Bearer tok-3") {
		t.Errorf("after a 401: %s", got)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.leaked) > 0 || w.metaAuth > 0 {
		t.Errorf("the secret reached %v; metadata requests with Authorization: %d", w.leaked, w.metaAuth)
	}
	want := "grant_type=client_credentials&resource=" + url.QueryEscape(w.srv.URL+"/mcp") + "&scope=mcp%3Atools"
	if len(w.forms) != 3 || w.forms[0] != want {
		t.Errorf("token requests %q, want 3 of %q", w.forms, want)
	}
}

// A wrong secret fails the start with a setup error that names the token
// endpoint, its answer and the setting to fix, and never the secret.
func TestOAuthBadSecretIsAClearSetupError(t *testing.T) {
	t.Parallel()
	w := newAuthWorld(t, "right-secret-0099", nil)
	_, err := w.client(t, &OAuthConfig{ClientID: "ci", ClientSecretEnv: "API_SECRET"}, map[string]string{"API_SECRET": "wrong-secret-1234"})
	want := fmt.Sprintf(`oauth: the token endpoint %s/as/token refused odek's client credentials: invalid_client (client authentication failed); check mcp_servers.api.oauth (client_id "ci" and the secret in $API_SECRET)`, w.srv.URL)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("err = %v\nwant it to contain %s", err, want)
	}
	if _, err := w.client(t, &OAuthConfig{ClientID: "ci", ClientSecretEnv: "UNSET"}, nil); err == nil ||
		err.Error() != `mcp server "api": oauth: client_secret_env "UNSET" is unset or empty` {
		t.Errorf("unset variable: %v", err)
	}
}

// A signed JWT assertion (RFC 7523) from a key file logs odek in instead of
// a secret: ECDSA P-256 and Ed25519, each verified by the token endpoint.
func TestOAuthPrivateKeyAssertion(t *testing.T) {
	t.Parallel()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	for name, key := range map[string]crypto.Signer{"ES256": ec, "EdDSA": ed} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			der, err := x509.MarshalPKCS8PrivateKey(key)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "key.pem")
			if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
				t.Fatal(err)
			}
			w := newAuthWorld(t, "unused-secret-7777", key.Public())
			c, err := w.client(t, &OAuthConfig{ClientID: "ci", PrivateKeyFile: file, KeyID: "k1"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := whoami(t, c); !strings.Contains(got, "Bearer tok-1") {
				t.Errorf("call: %s", got)
			}
			if f := w.forms[0]; !strings.Contains(f, "client_assertion=%3Cjwt%3E") || !strings.Contains(f, "client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer") {
				t.Errorf("token request %s", f)
			}
		})
	}
}

// Metadata that is not true of this server is refused before odek's
// credentials go anywhere: a resource that is another server's (odek's
// token would be minted for it), an issuer other than the authorization
// server asked, a token endpoint over plain http to a host that is not
// this machine (the secret would cross the network in clear); and a token
// that is not a Bearer token is not used as one.
func TestOAuthRefusesUntrueMetadata(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ lie, want string }{
		{"resource", `resource "https://other.example/mcp"`},
		{"issuer", `issuer "https://other.example/as" is not`},
		{"http-token", `token endpoint: "http://token.invalid/as/token": odek sends OAuth requests over https only`},
		{"token-type", `want a Bearer access_token, got token_type "mac"`},
		{"huge-metadata", fmt.Sprintf("over %d bytes", maxMetadata)},
		// a refusal that quotes what it got: the secret is masked in the error
		{"echo-secret", `no client has the secret [REDACTED]`},
	} {
		t.Run(tt.lie, func(t *testing.T) {
			t.Parallel()
			w := newAuthWorld(t, "the-secret-4242", nil)
			w.lie = tt.lie
			_, err := w.client(t, &OAuthConfig{ClientID: "ci", ClientSecretEnv: "S"}, map[string]string{"S": "the-secret-4242"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant it to contain %s", err, tt.want)
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if strings.Contains(err.Error(), "the-secret-4242") {
				t.Errorf("the error holds the secret: %v", err)
			}
			if tt.lie != "token-type" && tt.lie != "echo-secret" && w.tokens != 0 {
				t.Errorf("%d token requests: the credentials were sent after untrue metadata", w.tokens)
			}
			for _, s := range w.seenMCP {
				if strings.Contains(s, "auth=Bearer") {
					t.Errorf("the MCP endpoint got a token: %s", s)
				}
			}
		})
	}
}

// A key file is not used with an authorization server whose metadata
// lists the client authentication methods it accepts without
// private_key_jwt: odek says so instead of sending an assertion it will
// not take.
func TestOAuthKeyNeedsPrivateKeyJWT(t *testing.T) {
	t.Parallel()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	file := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(file, pemOf(t, ec), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newAuthWorld(t, "unused-secret-7777", ec.Public())
	w.lie = "no-jwt"
	_, err := w.client(t, &OAuthConfig{ClientID: "ci", PrivateKeyFile: file}, nil)
	if err == nil || !strings.Contains(err.Error(), "does not accept private_key_jwt") {
		t.Errorf("err = %v, want a refusal naming private_key_jwt", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tokens != 0 {
		t.Errorf("%d token requests", w.tokens)
	}
}
