#!/usr/bin/env bash
# Installs the pinned npm MCP servers (and the TypeScript SDKs with zod, which
# testdata/mcp-npm/ts-peer.mjs (SDK 2.x) and ts1-peer.mjs (SDK 1.x) are written
# on, and the ACP TypeScript SDK acp-client.mjs is written on) used by odek's
# interop tests (interop/)
# into testdata/mcp-npm/node_modules, and pre-fetches the Go SDK peer's module
# (interop/gopeers) so the test run itself needs no network.
#
# Idempotent: when every dependency in package.json is already installed at its
# pinned version, nothing is run. Fails loudly (non-zero, one clear line) when
# node or npm is missing or the install fails, so CI never runs the interop
# tests against half-installed peers.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/testdata/mcp-npm"

die() { echo "install-mcp-peers: $*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || die "node not found on PATH (need Node.js >= 20)"
command -v npm >/dev/null 2>&1 || die "npm not found on PATH (it ships with Node.js)"
[ -f "$dir/package.json" ] || die "missing $dir/package.json"

# pinned_ok succeeds when every dependency's installed
# package.json reports exactly the version pinned in ours; otherwise it names
# the first mismatch on stderr.
pinned_ok() {
  (cd "$dir" && node -e '
    const fs = require("fs");
    const deps = JSON.parse(fs.readFileSync("package.json", "utf8")).dependencies || {};
    for (const [name, want] of Object.entries(deps)) {
      let got = "";
      try { got = JSON.parse(fs.readFileSync("node_modules/" + name + "/package.json", "utf8")).version; } catch (e) {}
      if (got !== want) { console.error(name + ": installed " + (got || "nothing") + ", pinned " + want); process.exit(1); }
    }')
}

# The Go peer is built by the tests; fetching its module here is cheap and idempotent.
if command -v go >/dev/null 2>&1; then
  GOWORK=off go -C "$root/interop/gopeers" mod download \
    || die "go mod download failed in interop/gopeers (is the Go module proxy reachable?)"
fi

if pinned_ok 2>/dev/null; then
  echo "install-mcp-peers: pinned MCP peers already installed in $dir"
  exit 0
fi

start=$(date +%s)
(cd "$dir" && npm install --no-audit --no-fund --no-package-lock) \
  || die "npm install failed in $dir (is the npm registry reachable?)"
pinned_ok || die "installed versions do not match the pins in $dir/package.json"
echo "install-mcp-peers: installed in $(( $(date +%s) - start ))s"
