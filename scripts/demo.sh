#!/usr/bin/env bash
# The offline demo: odek solves a small task end to end against the fake
# OpenAI-compatible server, calling a real MCP server over stdio. No API key,
# no network. It cleans up after itself.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/wordcount ./testdata/demo/wordcount

work=$(mktemp -d)
trap 'kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

bin/fakellm -script testdata/demo/script.json -addr 127.0.0.1:0 -url-file "$work/url" >/dev/null &
fake_pid=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
[ -s "$work/url" ] || { echo "demo: the fake LLM server did not start" >&2; exit 1; }

# The operator's global config: one MCP server, approved by the operator.
mkdir -p "$work/home"
cat >"$work/home/config.json" <<JSON
{
  "model": "fake-demo-model",
  "mcp_servers": {
    "demo": {"command": "$PWD/bin/wordcount", "auto_approve": true}
  }
}
JSON

echo "\$ odek run --events-jsonl events.jsonl \"Summarise what odek is, and check the length of its description\""
echo
ODEK_HOME="$work/home" ODEK_BASE_URL="$(cat "$work/url")" ODEK_API_KEY= \
  bin/odek run --events-jsonl "$work/events.jsonl" \
  "Summarise what odek is, and check the length of its description"
echo
echo "Events written (odek.event/v1):"
cut -c1-160 "$work/events.jsonl" | sed 's/^/  /'
