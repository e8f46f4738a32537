// Package interop_test proves odek's MCP client (internal/mcpclient) against
// MCP servers that nobody on the odek team wrote: a server built on the
// official Go SDK (interop/gopeers, a nested module so odek itself never
// depends on the SDK) and the reference TypeScript servers from npm
// (testdata/mcp-npm, installed by scripts/install-mcp-peers.sh); and odek
// acp against an ACP client written with the ACP TypeScript SDK.
//
// A missing peer skips its tests locally, but fails them when CI is set or
// ODEK_INTEROP_REQUIRED=1, so a CI job cannot pass by testing nothing.
package interop_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/odek-run/odek/internal/testbin"
)

// Peer names, as used in skip/fail messages.
const (
	peerGo         = "go-sdk peer (interop/gopeers)"
	peerEverything = "@modelcontextprotocol/server-everything"
	peerFilesystem = "@modelcontextprotocol/server-filesystem"
	// peerTS is testdata/mcp-npm/ts-peer.mjs, a server written with the
	// TypeScript SDK @modelcontextprotocol/server 2.4.0 (dual-era, or
	// modern-only with --legacy=reject).
	peerTS = "@modelcontextprotocol/server 2.4.0 (testdata/mcp-npm/ts-peer.mjs)"
	// peerTS1 is testdata/mcp-npm/ts1-peer.mjs, a server written with the
	// TypeScript SDK 1.x (@modelcontextprotocol/sdk 1.32.2): 2025 revisions only.
	peerTS1 = "@modelcontextprotocol/sdk 1.32.2 (testdata/mcp-npm/ts1-peer.mjs)"
	// peerACP is testdata/mcp-npm/acp-client.mjs, an ACP client written
	// with the ACP TypeScript SDK (@agentclientprotocol/sdk 2.4.0), which
	// drives odek acp.
	peerACP = "@agentclientprotocol/sdk 2.4.0 (testdata/mcp-npm/acp-client.mjs)"
	// peerOdek is the odek binary itself, for the end-to-end checks.
	peerOdek = "odek (go build ./cmd/odek)"
)

// peers maps a peer name to the executable to spawn; a peer is absent when
// its entry is empty, and missing[name] then says why.
var (
	peers   = map[string]string{}
	missing = map[string]string{}
)

func TestMain(m *testing.M) {
	locatePeers()
	code := m.Run()
	if code == 0 {
		// Every test closes its clients; anything still alive is a leak.
		if left := childProcesses(); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "interop: child processes left running after all tests: %v\n", left)
			code = 1
		}
	}
	testbin.Cleanup()
	os.Exit(code)
}

// repoRoot is found from this file's location, not the working directory, so
// the suite also works when run from elsewhere (e.g. go test -C).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// locatePeers builds the Go SDK peer once and finds the npm servers' bins.
func locatePeers() {
	root := repoRoot()
	// The peer is its own module; a workspace file must not pull it into odek's.
	if bin, err := testbin.Program("gopeer", []string{"GOWORK=off"}, "build", "-C", "interop/gopeers", "-o", "{out}", "."); err != nil {
		missing[peerGo] = fmt.Sprintf("building it failed: %v", err)
	} else {
		peers[peerGo] = bin
	}
	if odek, err := testbin.Program("odek", nil, "build", "-o", "{out}", "./cmd/odek"); err != nil {
		missing[peerOdek] = fmt.Sprintf("building it failed: %v", err)
	} else {
		peers[peerOdek] = odek
	}
	npmBin := filepath.Join(root, "testdata", "mcp-npm", "node_modules", ".bin")
	for name, exe := range map[string]string{
		peerEverything: "mcp-server-everything",
		peerFilesystem: "mcp-server-filesystem",
	} {
		p := filepath.Join(npmBin, exe)
		if _, err := os.Stat(p); err != nil {
			missing[name] = fmt.Sprintf("%s not found", p)
			continue
		}
		if _, err := exec.LookPath("node"); err != nil {
			missing[name] = "node is not on PATH"
			continue
		}
		peers[name] = p
	}
	for name, p := range map[string]struct{ script, pkg string }{
		peerTS:  {"ts-peer.mjs", "@modelcontextprotocol/server"},
		peerTS1: {"ts1-peer.mjs", "@modelcontextprotocol/sdk"},
		peerACP: {"acp-client.mjs", "@agentclientprotocol/sdk"},
	} {
		sdk := filepath.Join(root, "testdata", "mcp-npm", "node_modules", filepath.FromSlash(p.pkg), "package.json")
		switch _, err := os.Stat(sdk); {
		case err != nil:
			missing[name] = sdk + " not found"
		default:
			if _, err := exec.LookPath("node"); err != nil {
				missing[name] = "node is not on PATH"
			} else {
				peers[name] = filepath.Join(root, "testdata", "mcp-npm", p.script)
			}
		}
	}
}

// requirePeer returns the peer's executable, or skips the test (fails it in
// CI or with ODEK_INTEROP_REQUIRED=1) when the peer is not installed.
func requirePeer(t *testing.T, name string) string {
	t.Helper()
	if p := peers[name]; p != "" {
		return p
	}
	msg := fmt.Sprintf("MCP peer %s unavailable: %s\nrun `make interop-deps` (scripts/install-mcp-peers.sh) to install the interop peers",
		name, missing[name])
	if os.Getenv("CI") != "" || os.Getenv("ODEK_INTEROP_REQUIRED") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
