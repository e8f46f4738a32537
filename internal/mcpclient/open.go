package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// probeTimeout bounds the server/discover probe: a legacy server may never
// answer a request it does not know before initialize, and then the
// silence itself is the answer (MCP 2026-07-28, stdio "Backward
// Compatibility"; on HTTP a legacy server may hold a session-less POST
// open just as well). Tests shorten it per Client (Options.timings).
const probeTimeout = 5 * time.Second

// serverState is what the opening learnt about the server.
type serverState struct {
	era     Era
	version string
	caps    map[string]json.RawMessage
}

func (c *Client) setState(s *serverState) {
	c.state.Store(s)
	// Modern Streamable HTTP cancels by closing the request's stream; the
	// transport does that when the request's ctx ends.
	c.link().quietCancel.Store(c.http != nil && s.era == EraModern)
}

// Era returns the era the server was found to speak; "" before Discover.
func (c *Client) Era() Era {
	if s := c.state.Load(); s != nil && c.inited.Load() {
		return s.era
	}
	if s := c.state.Load(); s != nil && s.era == EraModern {
		return EraModern // the probe itself is a modern request
	}
	return ""
}

// ProtocolVersion returns the protocol revision spoken with the server; ""
// before Discover.
func (c *Client) ProtocolVersion() string {
	if s := c.state.Load(); s != nil && c.inited.Load() {
		return s.version
	}
	return ""
}

// protocolVersion is the revision requests carry, also during the opening.
func (c *Client) protocolVersion() string {
	if s := c.state.Load(); s != nil {
		return s.version
	}
	return ""
}

// Transport names how odek reaches the server: "stdio" or "http".
func (c *Client) Transport() string {
	if c.http != nil {
		return "http"
	}
	return "stdio"
}

// HasCapability reports whether the server declared capability name
// (tools, resources, ...) when it opened.
func (c *Client) HasCapability(name string) bool {
	s := c.state.Load()
	if s == nil {
		return false
	}
	_, ok := s.caps[name]
	return ok
}

// open detects the server's era and opens it, once.
func (c *Client) open(ctx context.Context) error {
	c.initMu.Lock()
	defer c.initMu.Unlock()
	if c.inited.Load() {
		return nil
	}
	if err := c.detect(ctx); err != nil {
		return err
	}
	c.inited.Store(true)
	c.opened.Store(true)
	return nil
}

// detect follows MCP 2026-07-28 "Versioning and Compatibility": a modern
// request (server/discover) goes first; a DiscoverResult or a recognised
// modern error means a modern server, which is never sent initialize (some
// refuse it after discover); any other error — or, on stdio, silence —
// means a legacy server, which is then opened with initialize on the same
// process or endpoint.
func (c *Client) detect(ctx context.Context) error {
	version := ModernProtocolVersion
	for attempt := 0; attempt < 2; attempt++ {
		info, err := c.probe(ctx, version)
		if err == nil {
			return c.adopt(ctx, info)
		}
		switch sig := classifyProbe(err); {
		case ctx.Err() != nil:
			return err
		case sig.unsupported != nil:
			v, era, ok := chooseVersion(sig.unsupported)
			switch {
			case !ok:
				return c.noCommonVersion(sig.unsupported)
			case era == EraLegacy:
				return c.fallback(ctx, v)
			case v == version:
				return err // it named ours as supported and still refused it
			}
			version = v
		case sig.modern:
			return err
		case sig.legacy:
			return c.fallbackOrForward(ctx)
		default:
			return err
		}
	}
	return newError(c.name, methodDiscover, classMCP, errors.New("server refused every protocol version it listed"))
}

// probe sends server/discover speaking version.
func (c *Client) probe(ctx context.Context, version string) (*discoverInfo, error) {
	c.setState(&serverState{era: EraModern, version: version})
	if c.http != nil {
		c.http.setModern(version)
	}
	pctx, cancel := context.WithTimeout(ctx, min(or(c.opts.timings.probe, probeTimeout), c.lim.timeout))
	defer cancel()
	c.read.lower(defaultDiscoverBytes)
	raw, err := c.request(pctx, methodDiscover, methodDiscover, c.withMeta(nil))
	c.read.lower(0)
	if tl := (*ResponseTooLargeError)(nil); errors.As(err, &tl) && tl.Limit == defaultDiscoverBytes && tl.Limit < c.lim.maxResp {
		return nil, newError(c.name, methodDiscover, classMCP, &discoveryLimitError{Bound: boundDiscoverBytes, Limit: tl.Limit, Observed: tl.Observed})
	}
	if err != nil {
		return nil, err
	}
	info, err := parseDiscover(raw)
	if err != nil {
		// An answer that is no DiscoverResult (no supportedVersions, another
		// resultType, not even an object) does not show a modern server.
		return nil, newError(c.name, methodDiscover, classMCP, &notDiscoverError{err: err})
	}
	return info, nil
}

// notDiscoverError is a probe answered with a result that is not a
// DiscoverResult: a legacy server's way of answering, like an error.
type notDiscoverError struct{ err error }

func (e *notDiscoverError) Error() string { return e.err.Error() }
func (e *notDiscoverError) Unwrap() error { return e.err }

// adopt settles on the version a DiscoverResult allows.
func (c *Client) adopt(ctx context.Context, info *discoverInfo) error {
	v, era, ok := chooseVersion(info.Supported)
	switch {
	case !ok:
		return c.noCommonVersion(info.Supported)
	case era == EraLegacy:
		// A server that answers discover but lists only handshake
		// revisions asks for initialize.
		return c.fallback(ctx, v)
	}
	c.setState(&serverState{era: EraModern, version: v, caps: info.Capabilities})
	if c.http != nil {
		c.http.setModern(v)
	}
	return nil
}

// fallbackOrForward opens what looked like a legacy server with initialize.
// If the server refuses it, odek asks server/discover once more before it
// gives up, on the same process: a modern server too slow for the probe
// answers it now (a modern-only one refuses initialize with -32022, go-sdk
// with "duplicate initialize" once it has answered the late probe), and
// odek goes modern instead of failing a server that works.
func (c *Client) fallbackOrForward(ctx context.Context) error {
	err := c.fallback(ctx, ProtocolVersion)
	var rpc *RPCError
	if err == nil || !errors.As(err, &rpc) {
		return err
	}
	version := ModernProtocolVersion
	if v, era, ok := chooseVersion(rpc.Supported); ok && era == EraModern {
		version = v
	}
	info, perr := c.probe(ctx, version)
	if perr != nil {
		c.setState(&serverState{era: EraLegacy, version: ProtocolVersion})
		return err
	}
	if _, era, ok := chooseVersion(info.Supported); !ok || era != EraModern {
		c.setState(&serverState{era: EraLegacy, version: ProtocolVersion})
		return err // it lists only handshake revisions and refused the handshake
	}
	return c.adopt(ctx, info)
}

// fallback opens a legacy server with initialize.
func (c *Client) fallback(ctx context.Context, version string) error {
	c.setState(&serverState{era: EraLegacy, version: version})
	if c.http != nil {
		c.http.setModern("")
	}
	// odek asks for the revision it always asked for (docs/MCP.md) unless the server's
	// own list said it wants another.
	if !supportedVersions[version] {
		version = ProtocolVersion
	}
	return c.initialize(ctx, version)
}

func (c *Client) noCommonVersion(server []string) error {
	return newError(c.name, methodDiscover, classMCP, fmt.Errorf(
		"server supports protocol versions %s, none of which odek speaks (%s); disconnected",
		quoteVersions(server), odekVersions()))
}

// probeSignal is what a failed probe says about the server.
type probeSignal struct {
	modern      bool     // a recognised modern error: do not fall back
	unsupported []string // -32022's supported list (modern)
	legacy      bool     // anything else a legacy server might answer
}

// classifyProbe reads a failed probe, as the spec's compatibility rules and
// the official SDKs do: a recognised modern error (-32020/-32021/-32022, in
// a JSON-RPC answer or an HTTP error body) means modern; every other
// answer — a JSON-RPC error of any code, an HTTP error status of any code
// without a modern body, a result that is no DiscoverResult — and silence
// within the probe timeout mean legacy. Only a failure that is no answer
// at all (the process exited, the connection was refused or broke, a
// discovery bound) fails the server.
func classifyProbe(err error) probeSignal {
	var rpc *RPCError
	if errors.As(err, &rpc) {
		if rpc.Code == codeUnsupportedProtocolVersion && len(rpc.Supported) > 0 {
			return probeSignal{modern: true, unsupported: rpc.Supported}
		}
		if isModernCode(rpc.Code) {
			return probeSignal{modern: true}
		}
		return probeSignal{legacy: true}
	}
	var st *hTTPStatusError
	if errors.As(err, &st) {
		if st.RPCCode != nil && isModernCode(*st.RPCCode) {
			if *st.RPCCode == codeUnsupportedProtocolVersion && len(st.Supported) > 0 {
				return probeSignal{modern: true, unsupported: st.Supported}
			}
			return probeSignal{modern: true}
		}
		return probeSignal{legacy: true}
	}
	var nd *notDiscoverError
	var to *timeoutError
	return probeSignal{legacy: errors.As(err, &nd) || errors.As(err, &to)}
}
