#!/usr/bin/env bash
# A PreToolUse guard as teams write them for Claude Code: blocks rm by
# exiting 2, the reason on stderr. Reads the event without jq.
input=$(cat)
if printf '%s' "$input" | grep -q '"command":"rm '; then
  echo "rm is not allowed here; move files to ./trash instead" >&2
  exit 2
fi
exit 0
