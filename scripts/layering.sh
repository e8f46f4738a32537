#!/usr/bin/env bash
# Enforces docs/ARCHITECTURE.md: which internal package may import which.
# Leaf packages import no other internal package; only cmd/odek wires all.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/odek-run/odek/internal
declare -A allowed=(
  [artifact]="untrusted atomicfile safepath"
  [budget]="errclass"
  [events]="errclass"
  [errclass]=""
  [redact]=""
  [untrusted]=""
  [suggest]=""
  [syncbuf]=""
  [outschema]="untrusted"
  [atomicfile]=""
  [cassette]=""
  [safepath]=""
  [plan]="untrusted msgkind"
  [prompt]=""
  [session]="llm msgkind untrusted atomicfile errclass"
  [llm]="errclass msgkind"
  [msgkind]=""
  [fakellm]=""
  [config]="budget errclass mcpclient redact suggest"
  [loop]="llm msgkind budget events errclass redact untrusted risk"
  [risk]=""
  [policy]="risk untrusted errclass"
  [builtin]="risk events untrusted artifact safepath proc sandbox"
  [sandbox]=""
  [proc]="sandbox"
  [mcpclient]="artifact errclass untrusted redact proc sandbox risk"
  [approval]="mcpclient errclass untrusted atomicfile"
  [subagent]="artifact budget errclass events llm risk untrusted proc"
)
fail=0
for pkg in "${!allowed[@]}"; do
  [ -d "internal/$pkg" ] || continue
  deps=$(go list -f '{{join .Imports "\n"}}' "./internal/$pkg/..." 2>/dev/null | grep "^$mod/" | sed "s#^$mod/##" | cut -d/ -f1 | sort -u || true)
  for d in $deps; do
    [ "$d" = "$pkg" ] && continue
    if ! grep -qw -- "$d" <<<"${allowed[$pkg]}"; then
      echo "layering: internal/$pkg must not import internal/$d (see docs/ARCHITECTURE.md)"
      fail=1
    fi
  done
done
for dir in internal/*/; do
  pkg=$(basename "$dir")
  if [ -z "${allowed[$pkg]+x}" ]; then
    echo "layering: internal/$pkg has no entry in scripts/layering.sh"
    fail=1
  fi
done
exit $fail
