package artifact

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// uriPath turns a ref's uri into an absolute, clean, percent-decoded local
// path, or explains why it cannot. The error never echoes the uri, which may
// carry a path the model must not see.
func uriPath(ref Ref) (string, error) {
	u, err := url.Parse(ref.URI)
	if err != nil {
		return "", refErr(ref, "uri is not a valid URI")
	}
	switch {
	case u.Scheme != "file":
		return "", refErr(ref, "uri scheme %q is not \"file\"", untrusted.OneLine(u.Scheme, 32))
	case u.User != nil:
		return "", refErr(ref, "uri must not carry userinfo")
	case u.Host != "":
		return "", refErr(ref, "uri must not name a host (use file:///absolute/path)")
	case u.RawQuery != "" || u.ForceQuery || strings.Contains(ref.URI, "?"):
		return "", refErr(ref, "uri must not carry a query")
	case u.Fragment != "" || strings.Contains(ref.URI, "#"):
		return "", refErr(ref, "uri must not carry a fragment")
	case u.Opaque != "":
		return "", refErr(ref, "uri path is not absolute")
	}
	p := u.Path
	switch {
	case strings.ContainsRune(p, 0):
		return "", refErr(ref, "uri path contains a NUL byte")
	case !filepath.IsAbs(p):
		return "", refErr(ref, "uri path is not absolute")
	case filepath.Clean(p) != p:
		return "", refErr(ref, "uri path is not clean (\"..\", \".\", repeated or trailing separators)")
	}
	return p, nil
}
