#!/usr/bin/env bash
# Optional MCP conformance check of odek's client (Streamable HTTP), using
# @modelcontextprotocol/conformance. Not part of `go test`; a make target or
# an optional CI step runs it.
#
# The suite needs Node 22, installed from npm next to it in a cache folder
# outside the repository (ODEK_CONFORMANCE_DIR, default
# ~/.cache/odek-mcp-conformance), so nothing lands in the tree. Known failures
# are listed in baseline.yml; a new failure or a stale entry fails the run.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${ODEK_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/odek-mcp-conformance}"
scenarios=(tools_call initialize)

die() { echo "mcp-conformance: $*" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || die "npm not found on PATH"
command -v go >/dev/null 2>&1 || die "go not found on PATH"

mkdir -p "$work"
cp "$here/package.json" "$work/package.json"
printf 'package-lock=false\n' > "$work/.npmrc"
want="$(node -p 'require(process.argv[1]).dependencies["@modelcontextprotocol/conformance"]' "$here/package.json")"
have="$(node -p 'try { require(process.argv[1]).version } catch (e) { "" }' "$work/node_modules/@modelcontextprotocol/conformance/package.json")"
if [ "$have" != "$want" ]; then
  (cd "$work" && npm install --no-audit --no-fund) || die "npm install failed in $work"
fi
export PATH="$work/node_modules/.bin:$PATH"
case "$(node --version)" in v22.*) ;; *) die "expected Node 22 from $work, got $(node --version)" ;; esac

go build -C "$root" -o "$work/odek-conformance-client" ./interop/conformance || die "building the client failed"

status=0
for sc in "${scenarios[@]}"; do
  echo "== scenario $sc"
  (cd "$work" && conformance client --command "$work/odek-conformance-client" --scenario "$sc" \
    --expected-failures "$here/baseline.yml") || status=1
done
exit "$status"
