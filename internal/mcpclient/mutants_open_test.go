package mcpclient

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// refuseInitServer is a server, in memory, that answers its first
// server/discover with probe (nil: Method not found, so it looks legacy),
// refuses the first initialize with initError (nil: accepts it), and
// answers every later server/discover with reprobe(the protocolVersion
// its _meta carried); a later initialize is accepted, with the version it
// asked for. It records the methods it saw and the version each probe
// spoke.
type refuseInitServer struct {
	probe     map[string]any // the message, without id
	initError map[string]any
	reprobe   func(version string) map[string]any // the message, without id

	mu     sync.Mutex
	seen   []string
	probes []string
	inits  int
}

func (s *refuseInitServer) serve(end *memServer) {
	serveRequests(end, func(b []byte, send func(map[string]any)) {
		var m eraMsg
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			return
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		var version string
		_ = json.Unmarshal(p.Meta[metaProtocolVersion], &version)
		s.mu.Lock()
		s.seen = append(s.seen, m.Method)
		probe, inits := len(s.probes), s.inits
		switch m.Method {
		case "server/discover":
			s.probes = append(s.probes, version)
		case "initialize":
			s.inits++
		}
		s.mu.Unlock()
		reply := func(v map[string]any) {
			v["id"] = m.ID
			send(v)
		}
		switch {
		case m.Method == "server/discover" && probe == 0 && s.probe != nil:
			reply(s.probe)
		case m.Method == "server/discover" && probe == 0:
			reply(map[string]any{"error": map[string]any{"code": -32601, "message": "Method not found"}})
		case m.Method == "server/discover":
			reply(s.reprobe(version))
		case m.Method == "initialize" && inits == 0 && s.initError != nil:
			reply(map[string]any{"error": s.initError})
		case m.Method == "initialize":
			var ip initParams
			_ = json.Unmarshal(m.Params, &ip)
			reply(map[string]any{"result": map[string]any{"protocolVersion": ip.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}}}})
		case m.Method == "tools/list":
			reply(map[string]any{"result": map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}})
		default:
			reply(map[string]any{"error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	})
}

func (s *refuseInitServer) saw() (methods, probes string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ms []string
	for _, m := range s.seen {
		if m != "" {
			ms = append(ms, m)
		}
	}
	return strings.Join(ms, ","), strings.Join(s.probes, ",")
}

// discoverResult is a DiscoverResult listing versions.
func discoverResult(versions ...string) map[string]any {
	return map[string]any{"result": map[string]any{"supportedVersions": versions, "capabilities": map[string]any{"tools": map[string]any{}}}}
}

// After a refused initialize odek asks server/discover once more as a
// modern request, speaking its own modern revision: the refusal's list
// picks the revision only when it names a modern one. A refusal that
// lists only handshake revisions does not make the second probe speak
// one of them (a modern server answers that with -32022, and a server
// that works would be failed).
func TestSecondProbeSpeaksAModernRevision(t *testing.T) {
	t.Parallel()
	s := &refuseInitServer{
		initError: map[string]any{"code": -32022, "message": "Unsupported protocol version",
			"data": map[string]any{"supported": []string{"2025-06-18"}, "requested": "2025-03-26"}},
		reprobe: func(version string) map[string]any {
			if version != ModernProtocolVersion {
				return map[string]any{"error": map[string]any{"code": -32022, "message": "Unsupported protocol version",
					"data": map[string]any{"supported": []string{ModernProtocolVersion}, "requested": version}}}
			}
			return discoverResult(ModernProtocolVersion)
		},
	}
	c, _, err := connectInMemory(t, "ri", ServerConfig{}, Options{}, s.serve)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if c.Era() != EraModern || c.ProtocolVersion() != ModernProtocolVersion {
		t.Errorf("era %q version %q, want modern %s", c.Era(), c.ProtocolVersion(), ModernProtocolVersion)
	}
	if methods, probes := s.saw(); methods != "server/discover,initialize,server/discover,tools/list" || probes != ModernProtocolVersion+","+ModernProtocolVersion {
		t.Errorf("server saw %s, probes speaking %s", methods, probes)
	}
}

// A server that refused initialize and then lists only handshake
// revisions is not sent initialize again: odek fails it with the
// refusal it got.
func TestRefusedHandshakeIsNotRetried(t *testing.T) {
	t.Parallel()
	s := &refuseInitServer{
		initError: map[string]any{"code": -32603, "message": "not ready"},
		reprobe:   func(string) map[string]any { return discoverResult("2025-06-18") },
	}
	_, _, err := connectInMemory(t, "ri", ServerConfig{}, Options{}, s.serve)
	if want := "mcpclient ri: initialize: MCP error -32603: not ready"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if methods, _ := s.saw(); methods != "server/discover,initialize,server/discover" {
		t.Errorf("server saw %s, want one initialize between the two probes and nothing after", methods)
	}
}

// unsupported is a -32022 error listing versions.
func unsupported(versions ...string) map[string]any {
	return map[string]any{"error": map[string]any{"code": -32022, "message": "Unsupported protocol version",
		"data": map[string]any{"supported": versions, "requested": ModernProtocolVersion}}}
}

// A probe refused with -32022 whose list names only handshake revisions
// opens the server with initialize, asking for the revision it listed;
// one whose list names odek's own modern revision (and still refused it)
// fails the server after that one probe.
func TestProbeRefusedWithAList(t *testing.T) {
	t.Parallel()
	s := &refuseInitServer{probe: unsupported("2025-06-18")}
	c, _, err := connectInMemory(t, "pl", ServerConfig{}, Options{}, s.serve)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if c.Era() != EraLegacy || c.ProtocolVersion() != "2025-06-18" {
		t.Errorf("era %q version %q, want legacy 2025-06-18", c.Era(), c.ProtocolVersion())
	}
	if methods, _ := s.saw(); methods != "server/discover,initialize,tools/list" {
		t.Errorf("server saw %s", methods)
	}

	s = &refuseInitServer{probe: unsupported(ModernProtocolVersion)}
	_, _, err = connectInMemory(t, "pl", ServerConfig{}, Options{}, s.serve)
	want := `mcpclient pl: server/discover: MCP error -32022: Unsupported protocol version (server supports ["2026-07-28"]; odek speaks ` + odekVersions() + ")"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if methods, _ := s.saw(); methods != "server/discover" {
		t.Errorf("server saw %s, want the one probe", methods)
	}
}

// Transport names how odek reaches a server: "stdio" for a command (here
// the in-memory pair that stands in for its pipes), "http" for a URL.
func TestTransportNames(t *testing.T) {
	t.Parallel()
	c, _, err := connectInMemory(t, "ts", ServerConfig{}, Options{}, (&refuseInitServer{}).serve)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Transport(); got != "stdio" {
		t.Errorf("a command server's transport: %q", got)
	}
	srv := httptest.NewServer(&capsServer{})
	defer srv.Close()
	h, _, err := connectDiscovered(t, "th", ServerConfig{URL: srv.URL}, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Transport(); got != "http" {
		t.Errorf("a URL server's transport: %q", got)
	}
}
