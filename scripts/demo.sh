#!/usr/bin/env bash
# The offline demo: odek solves two small tasks end to end against the fake
# OpenAI-compatible server: one calling a real MCP server over stdio, one
# reading and patching a file in a scratch workspace with the built-in tools
# under the risk policy. No API key, no network. It cleans up after itself.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "demo: building bin/wordcount (the demo's MCP server)..."
go build -o bin/wordcount ./testdata/demo/wordcount

work=$(mktemp -d)
fake_pid=
trap 'kill $fake_pid 2>/dev/null || true; wait $fake_pid 2>/dev/null || true; rm -rf "$work"' EXIT

# start_fake SCRIPT URLFILE: serve a script on a free loopback port.
start_fake() {
  bin/fakellm -script "$1" -addr 127.0.0.1:0 -url-file "$2" >/dev/null &
  fake_pid="$fake_pid $!"
  for _ in $(seq 100); do [ -s "$2" ] && break; sleep 0.05; done
  [ -s "$2" ] || { echo "demo: the fake LLM server did not start" >&2; exit 1; }
}
start_fake testdata/demo/script.json "$work/url"

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

# What it prints is what it runs: the config, the environment, the command
# (README.md, "Try it offline, by hand", does the same step by step).
echo "ODEK_HOME=$work/home, whose config.json is:"
sed 's/^/  /' "$work/home/config.json"
echo "ODEK_BASE_URL=$(cat "$work/url") (bin/fakellm playing testdata/demo/script.json)"
echo
# The run's workspace is a directory of its own: ODEK_HOME inside it would
# be a protected path in the workspace, which odek warns about.
mkdir -p "$work/project"
echo "\$ cd project && bin/odek run --events-jsonl events.jsonl \"Summarise what odek is, and check the length of its description\""
echo
(cd "$work/project" && ODEK_HOME="$work/home" ODEK_BASE_URL="$(cat "$work/url")" ODEK_API_KEY= \
  "$OLDPWD/bin/odek" run --events-jsonl events.jsonl \
  "Summarise what odek is, and check the length of its description")
echo
echo "Events written (odek.event/v1):"
cut -c1-160 "$work/project/events.jsonl" | sed 's/^/  /'

# Part two: the built-in tools in a scratch workspace, no MCP server. A shell
# command that runs code is denied without a terminal, and the model is told.
echo
start_fake testdata/demo/workspace.json "$work/url2"
mkdir -p "$work/ws" "$work/home2"
printf '{"model": "fake-demo-model"}\n' >"$work/home2/config.json"
printf '#!/usr/bin/env bash\n# Print a greeting.\necho "Hello, wrold!"\n' >"$work/ws/greet.sh"
echo "ODEK_HOME=$work/home2, whose config.json is: $(cat "$work/home2/config.json")"
echo "ODEK_BASE_URL=$(cat "$work/url2") (bin/fakellm playing testdata/demo/workspace.json)"
echo
echo "\$ cd workspace && odek run \"Fix the typo in greet.sh\""
echo
(cd "$work/ws" && ODEK_HOME="$work/home2" ODEK_BASE_URL="$(cat "$work/url2")" ODEK_API_KEY= \
  "$OLDPWD/bin/odek" run "Fix the typo in greet.sh")
echo
echo "greet.sh now:"
sed 's/^/  /' "$work/ws/greet.sh"
