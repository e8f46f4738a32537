package mcpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/untrusted"
)

// Machine login (io.modelcontextprotocol/oauth-client-credentials): when
// the MCP server answers 401, odek reads the protected resource metadata
// it names (RFC 9728; the WWW-Authenticate resource_metadata, else the
// well-known URIs), then the first authorization server's metadata (RFC
// 8414, then OpenID discovery), and asks its token endpoint for a token
// with the client credentials grant: a client secret (Basic, or in the
// form when the server allows only that) or a signed JWT assertion (RFC
// 7523). The token is kept for the run, fetched again shortly before it
// expires and once on a 401. The secret and the assertion go to the token
// endpoint only, over https (or to a loopback host); never into a header
// of the MCP server, an error, a log or a recording.

// maxMetadata bounds a metadata document or token response odek reads.
const maxMetadata = 64 << 10

// oauthLogin gets and keeps one server's access token.
type oauthLogin struct {
	server   string
	cfg      OAuthConfig
	endpoint string // the MCP server URL
	client   *http.Client
	secret   string
	signer   *assertionSigner
	now      func() time.Time

	mu       sync.Mutex
	token    string
	expiry   time.Time // zero: unknown, kept until a 401
	skew     time.Duration
	hint     challenge // of the latest 401
	as       *asMetadata
	resource string
}

// challenge is what a 401's WWW-Authenticate says.
type challenge struct{ metadata, scope string }

// asMetadata is the part of an authorization server's metadata odek uses.
type asMetadata struct {
	Issuer        string   `json:"issuer"`
	TokenEndpoint string   `json:"token_endpoint"`
	AuthMethods   []string `json:"token_endpoint_auth_methods_supported"`
	SigningAlgs   []string `json:"token_endpoint_auth_signing_alg_values_supported"`
	GrantTypes    []string `json:"grant_types_supported"`
}

// newOAuthLogin reads the credential the config names, once: a missing
// variable, an unreadable file or a bad key is a setup error at start.
func newOAuthLogin(name string, cfg ServerConfig, client *http.Client, lookup func(string) (string, bool)) (*oauthLogin, error) {
	o := cfg.OAuth
	l := &oauthLogin{server: name, cfg: *o, endpoint: cfg.URL, client: client, now: time.Now}
	bad := func(format string, a ...any) (*oauthLogin, error) {
		return nil, &configError{Msg: fmt.Sprintf("mcp server %q: oauth: "+format, append([]any{name}, a...)...)}
	}
	switch {
	case o.ClientSecretEnv != "":
		v, _ := lookup(o.ClientSecretEnv)
		if v = strings.TrimSpace(v); v == "" {
			return bad("client_secret_env %q is unset or empty", o.ClientSecretEnv)
		}
		l.secret = v
	case o.ClientSecretFile != "":
		b, err := readSmall(o.ClientSecretFile)
		if err != nil {
			return bad("client_secret_file: %v", err)
		}
		if l.secret = strings.TrimSpace(string(b)); l.secret == "" {
			return bad("client_secret_file %s is empty", o.ClientSecretFile)
		}
	default:
		b, err := readSmall(o.PrivateKeyFile)
		if err != nil {
			return bad("private_key_file: %v", err)
		}
		if l.signer, err = parseSigner(b, o.KeyID); err != nil {
			return bad("private_key_file %s: %v", o.PrivateKeyFile, err)
		}
	}
	return l, nil
}

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err == nil && len(b) > maxKeyFile {
		err = fmt.Errorf("%s is over %d bytes", path, maxKeyFile)
	}
	return b, err
}

// bearer returns the token to send, fetching a new one first when the one
// kept expires soon. "" before the server asked for one (no 401 yet).
func (l *oauthLogin) bearer(ctx context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.token != "" && (l.expiry.IsZero() || l.now().Add(l.skew).Before(l.expiry)) {
		return l.token, nil
	}
	if l.as == nil && l.token == "" {
		return "", nil
	}
	return l.fetchLocked(ctx)
}

// unauthorized handles a 401: it drops the token that was refused and
// fetches a new one (discovering the authorization server the first time).
// used is the token the refused request carried: when another request
// already replaced it, the new one is tried without another fetch.
func (l *oauthLogin) unauthorized(ctx context.Context, wwwAuth, used string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.token != "" && l.token != used {
		return l.token, nil
	}
	l.token = ""
	l.hint = parseChallenge(wwwAuth)
	return l.fetchLocked(ctx)
}

func (l *oauthLogin) fetchLocked(ctx context.Context) (string, error) {
	if l.as == nil {
		if err := l.discoverLocked(ctx); err != nil {
			return "", l.fail("finding the authorization server", err)
		}
	}
	tok, life, err := l.requestToken(ctx)
	if err != nil {
		return "", err
	}
	l.token, l.expiry, l.skew = tok, time.Time{}, 0
	if life > 0 {
		l.expiry = l.now().Add(life)
		l.skew = min(30*time.Second, life/10)
	}
	return tok, nil
}

// fail words a login failure for the operator.
func (l *oauthLogin) fail(what string, err error) error {
	return fmt.Errorf("oauth login for mcp server %q failed %s: %w", l.server, what, err)
}

// discoverLocked finds the token endpoint: protected resource metadata,
// then its first authorization server's metadata.
func (l *oauthLogin) discoverLocked(ctx context.Context) error {
	prm, src, err := l.resourceMetadata(ctx)
	if err != nil {
		return err
	}
	if len(prm.AuthorizationServers) == 0 {
		return fmt.Errorf("%s names no authorization_servers", src)
	}
	if err := sameResource(prm.Resource, l.endpoint); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	l.resource = prm.Resource
	if l.cfg.Scope == "" && l.hint.scope == "" && len(prm.Scopes) > 0 {
		l.hint.scope = strings.Join(prm.Scopes, " ")
	}
	as, err := l.asMetadata(ctx, prm.AuthorizationServers[0])
	if err != nil {
		return err
	}
	l.as = as
	return nil
}

type resourceMeta struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	Scopes               []string `json:"scopes_supported"`
}

// resourceMetadata reads the URL the 401 named, else the well-known URIs
// of the MCP URL (with its path inserted, then at the root).
func (l *oauthLogin) resourceMetadata(ctx context.Context) (*resourceMeta, string, error) {
	u, err := url.Parse(l.endpoint)
	if err != nil {
		return nil, "", err
	}
	cands := []string{}
	if l.hint.metadata != "" {
		cands = append(cands, l.hint.metadata)
	} else {
		if p := strings.TrimSuffix(u.Path, "/"); p != "" {
			cands = append(cands, u.Scheme+"://"+u.Host+"/.well-known/oauth-protected-resource"+p)
		}
		cands = append(cands, u.Scheme+"://"+u.Host+"/.well-known/oauth-protected-resource")
	}
	var last error
	for _, c := range cands {
		var m resourceMeta
		if last = l.getJSON(ctx, c, &m); last == nil {
			return &m, c, nil
		}
	}
	return nil, "", last
}

// asMetadata reads an authorization server's metadata (RFC 8414, then
// OpenID discovery) and checks it can serve the client credentials grant.
func (l *oauthLogin) asMetadata(ctx context.Context, issuer string) (*asMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("authorization server %q is not a URL", clip(issuer, 200))
	}
	p := strings.TrimSuffix(u.Path, "/")
	base := u.Scheme + "://" + u.Host
	cands := []string{base + "/.well-known/oauth-authorization-server" + p, base + "/.well-known/openid-configuration" + p}
	if p != "" {
		cands = append(cands, base+p+"/.well-known/openid-configuration")
	}
	var last error
	for _, c := range cands {
		var m asMetadata
		if last = l.getJSON(ctx, c, &m); last != nil {
			continue
		}
		switch {
		case strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/"):
			return nil, fmt.Errorf("%s: issuer %q is not %q", c, clip(m.Issuer, 200), clip(issuer, 200))
		case m.TokenEndpoint == "":
			return nil, fmt.Errorf("%s has no token_endpoint", c)
		case len(m.GrantTypes) > 0 && !contains(m.GrantTypes, "client_credentials"):
			return nil, fmt.Errorf("%s: the authorization server does not offer the client_credentials grant", c)
		}
		if err := secureURL(m.TokenEndpoint); err != nil {
			return nil, fmt.Errorf("token endpoint: %w", err)
		}
		return &m, nil
	}
	return nil, last
}

// getJSON reads a metadata document; no credential goes with it.
func (l *oauthLogin) getJSON(ctx context.Context, target string, v any) error {
	if err := secureURL(target); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := l.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: http %d", target, resp.StatusCode)
	case len(b) > maxMetadata:
		return fmt.Errorf("%s: over %d bytes", target, maxMetadata)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: not JSON metadata: %w", target, err)
	}
	return nil
}

// requestToken runs the client credentials grant at the token endpoint.
func (l *oauthLogin) requestToken(ctx context.Context) (string, time.Duration, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if l.resource != "" {
		form.Set("resource", l.resource)
	}
	if s := l.cfg.Scope; s != "" {
		form.Set("scope", s)
	} else if l.hint.scope != "" {
		form.Set("scope", l.hint.scope)
	}
	req, err := l.tokenRequest(ctx, form)
	if err != nil {
		return "", 0, l.fail("preparing the token request", err)
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return "", 0, l.fail("reaching the token endpoint", l.scrub(err))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	var tr struct {
		AccessToken string   `json:"access_token"`
		TokenType   string   `json:"token_type"`
		ExpiresIn   *float64 `json:"expires_in"`
		Error       string   `json:"error"`
		Description string   `json:"error_description"`
	}
	_ = json.Unmarshal(b, &tr)
	if resp.StatusCode != http.StatusOK {
		what := tr.Error
		if tr.Description != "" {
			what += " (" + tr.Description + ")"
		}
		if what == "" {
			what = fmt.Sprintf("http %d", resp.StatusCode)
		}
		return "", 0, &configError{Msg: fmt.Sprintf("oauth: the token endpoint %s refused odek's client credentials: %s; check mcp_servers.%s.oauth (client_id %q and %s)",
			l.as.TokenEndpoint, l.scrub(errors.New(untrusted.OneLine(what, 300))), l.server, l.cfg.ClientID, l.credentialName())}
	}
	if tr.AccessToken == "" || !strings.EqualFold(tr.TokenType, "bearer") {
		return "", 0, l.fail("reading the token response", fmt.Errorf("want a Bearer access_token, got token_type %q", clip(tr.TokenType, 40)))
	}
	var life time.Duration
	if tr.ExpiresIn != nil && *tr.ExpiresIn > 0 {
		life = time.Duration(*tr.ExpiresIn * float64(time.Second))
	}
	return tr.AccessToken, life, nil
}

// tokenRequest builds the POST, authenticated as the config says and the
// authorization server allows.
func (l *oauthLogin) tokenRequest(ctx context.Context, form url.Values) (*http.Request, error) {
	methods := l.as.AuthMethods
	basic := false
	switch {
	case l.signer != nil:
		if len(methods) > 0 && !contains(methods, "private_key_jwt") {
			return nil, errors.New("the authorization server does not accept private_key_jwt; use a client secret")
		}
		if len(l.as.SigningAlgs) > 0 && !contains(l.as.SigningAlgs, l.signer.alg) {
			return nil, fmt.Errorf("the authorization server accepts assertions signed with %s, not %s (the key's algorithm)",
				strings.Join(l.as.SigningAlgs, ", "), l.signer.alg)
		}
		a, err := l.signer.assertion(l.cfg.ClientID, l.as.Issuer, l.now())
		if err != nil {
			return nil, err
		}
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", a)
	case len(methods) == 0 || contains(methods, "client_secret_basic"):
		basic = true
	case contains(methods, "client_secret_post"):
		form.Set("client_id", l.cfg.ClientID)
		form.Set("client_secret", l.secret)
	default:
		return nil, fmt.Errorf("the authorization server accepts none of client_secret_basic, client_secret_post (it lists %s)", strings.Join(methods, ", "))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.as.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString(
			[]byte(url.QueryEscape(l.cfg.ClientID)+":"+url.QueryEscape(l.secret))))
	}
	return req, nil
}

// credentialName says where the credential came from, never what it is.
func (l *oauthLogin) credentialName() string {
	switch {
	case l.cfg.ClientSecretEnv != "":
		return "the secret in $" + l.cfg.ClientSecretEnv
	case l.cfg.ClientSecretFile != "":
		return "the secret in " + l.cfg.ClientSecretFile
	}
	return "the key in " + l.cfg.PrivateKeyFile
}

// scrub removes the secret from text that came back from elsewhere.
func (l *oauthLogin) scrub(err error) error {
	if l.secret == "" || !strings.Contains(err.Error(), l.secret) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), l.secret, "[REDACTED]"))
}

// parseChallenge reads resource_metadata and scope from a Bearer
// WWW-Authenticate header.
func parseChallenge(h string) challenge {
	var c challenge
	for _, part := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "Bearer ")), "=")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "resource_metadata":
			c.metadata = v
		case "scope":
			c.scope = v
		}
	}
	return c
}

// sameResource checks that the protected resource metadata describes the
// server odek talks to: same origin, and a path the MCP URL lies under.
func sameResource(resource, endpoint string) error {
	r, err1 := url.Parse(resource)
	e, err2 := url.Parse(endpoint)
	if err1 != nil || err2 != nil || resource == "" {
		return fmt.Errorf("resource %q is not a URL", clip(resource, 200))
	}
	rp := strings.TrimSuffix(r.Path, "/")
	if r.Scheme != e.Scheme || r.Host != e.Host || (rp != "" && e.Path != rp && !strings.HasPrefix(e.Path, rp+"/")) {
		return fmt.Errorf("resource %q is not the server %q", clip(resource, 200), endpoint)
	}
	return nil
}

// secureURL refuses to send anything to a plain-http host other than
// loopback: metadata steers where the secret goes.
func secureURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("%q is not an absolute URL", clip(raw, 200))
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && loopbackHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%q: odek sends OAuth requests over https only (plain http only to a loopback host)", clip(raw, 200))
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
