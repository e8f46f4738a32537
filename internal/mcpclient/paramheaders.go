package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Tool parameters mirrored into HTTP headers (MCP 2026-07-28, Streamable
// HTTP "Custom Headers from Tool Parameters"): a property of a tool's
// inputSchema marked "x-mcp-header": "<Name>" is sent, on every tools/call
// over HTTP, as Mcp-Param-<Name>. odek checks the annotations when it lists
// the tools (a tool whose annotations break the rules is left out, with a
// warning) and mirrors the values when it calls them.

// paramHeader is one annotated property: its header name and the chain of
// properties keys that leads to it from the schema root.
type paramHeader struct {
	Name string
	Path []string
}

// maxParamHeaders bounds the annotations one tool may carry.
const maxParamHeaders = 32

// parseParamHeaders finds and checks a schema's x-mcp-header annotations:
// each a non-empty HTTP token, unique ignoring case, on a string, integer
// or boolean property reachable from the root through "properties" alone.
func parseParamHeaders(schema json.RawMessage) ([]paramHeader, error) {
	if !bytes.Contains(schema, []byte("x-mcp-header")) {
		return nil, nil // the common case costs one scan
	}
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, nil // not an object: nothing to mirror
	}
	var out []paramHeader
	seen := map[string]bool{}
	var walk func(node map[string]any, path []string) error
	walk = func(node map[string]any, path []string) error {
		if v, ok := node["x-mcp-header"]; ok {
			h, err := checkParamHeader(v, node, path, seen)
			if err != nil {
				return err
			}
			if len(out) == maxParamHeaders {
				return fmt.Errorf("more than %d x-mcp-header annotations", maxParamHeaders)
			}
			out = append(out, h)
		}
		for k, v := range node {
			if k == "x-mcp-header" {
				continue
			}
			props, isProps := v.(map[string]any)
			if k != "properties" || !isProps {
				if hasAnnotation(v, 0) {
					return fmt.Errorf("x-mcp-header under %q at %s: only properties reached through \"properties\" alone may carry it", k, pathName(path))
				}
				continue
			}
			for name, sub := range props {
				if m, ok := sub.(map[string]any); ok {
					if err := walk(m, append(path[:len(path):len(path)], name)); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if _, ok := root["x-mcp-header"]; ok {
		return nil, errors.New("x-mcp-header on the schema root")
	}
	if err := walk(root, nil); err != nil {
		return nil, err
	}
	return out, nil
}

func checkParamHeader(v any, node map[string]any, path []string, seen map[string]bool) (paramHeader, error) {
	name, ok := v.(string)
	if !ok || name == "" || !isToken(name) {
		return paramHeader{}, fmt.Errorf("x-mcp-header at %s must be a non-empty HTTP token", pathName(path))
	}
	switch node["type"] {
	case "string", "integer", "boolean":
	default:
		return paramHeader{}, fmt.Errorf("x-mcp-header %q at %s: only string, integer and boolean properties may carry it", name, pathName(path))
	}
	if seen[strings.ToLower(name)] {
		return paramHeader{}, fmt.Errorf("x-mcp-header %q appears twice (names are compared ignoring case)", name)
	}
	seen[strings.ToLower(name)] = true
	return paramHeader{Name: name, Path: append([]string(nil), path...)}, nil
}

// hasAnnotation reports an x-mcp-header key anywhere in v (depth-bounded:
// a deeper schema is refused rather than walked).
func hasAnnotation(v any, depth int) bool {
	if depth > 64 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "x-mcp-header" || hasAnnotation(e, depth+1) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasAnnotation(e, depth+1) {
				return true
			}
		}
	}
	return false
}

func pathName(path []string) string {
	if len(path) == 0 {
		return "the root"
	}
	return "properties." + strings.Join(path, ".properties.")
}

// isToken reports RFC 9110 token syntax (1*tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}

// setParamHeaders adds Mcp-Param-<Name> for each annotated argument the
// call carries; an absent or null value, or one that is not a string,
// integer or boolean, sends no header.
func setParamHeaders(h http.Header, specs []paramHeader, arguments json.RawMessage) {
	if len(specs) == 0 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	var args map[string]any
	if dec.Decode(&args) != nil {
		return
	}
	for _, sp := range specs {
		if v, ok := lookupPath(args, sp.Path); ok {
			if s, ok := headerScalar(v); ok {
				h.Set("Mcp-Param-"+sp.Name, headerValue(s))
			}
		}
	}
}

func lookupPath(v map[string]any, path []string) (any, bool) {
	var cur any = v
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func headerScalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return fmt.Sprint(x), true
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return fmt.Sprint(n), true
		}
	}
	return "", false
}
