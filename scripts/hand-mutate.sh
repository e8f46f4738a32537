#!/usr/bin/env bash
# Hand-written mutations of the security code (make hand-mutate): dropped
# statements, removed list entries, flipped flags — what gremlins cannot
# express. Each entry of scripts/hand-mutations.txt replaces one unique code
# snippet; the package's tests must then fail. The mutant reaches the go
# command through -overlay, so the working tree is never written.
#
# Usage: scripts/hand-mutate.sh [package ...]   (default: every listed one)
#   package = a dir (internal/risk) or a short name (risk, subagent/wire,
#   childside; odek = cmd/odek)
# Environment: HANDMUTATE_THRESHOLD (default 90: percentage each package must
# kill), MUTATE_MEMORY_KIB (virtual memory each process may map, default 8 GiB:
# a mutant that drops a size bound must fail its test, not take the machine).
set -euo pipefail
cd "$(dirname "$0")/.."
memory=${MUTATE_MEMORY_KIB:-8388608}
bin=$(mktemp -d "${TMPDIR:-/tmp}/odek-handmutate-bin.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/handmutate" ./scripts/handmutate
dirs=()
for p in "$@"; do
  p=${p%%:*}
  case $p in
  odek) p=cmd/odek ;;
  *) [ -d "$p" ] || p=internal/$p ;;
  esac
  # a subpackage's short name alone (wire, childside)
  if [ ! -d "$p" ]; then
    mapfile -t found < <(find internal -type d -name "${p##*/}")
    [ "${#found[@]}" -eq 1 ] || { echo "hand-mutate: no package is named ${p##*/}"; exit 2; }
    p=${found[0]}
  fi
  dirs+=("$p")
done
ulimit -v "$memory"
"$bin/handmutate" -threshold "${HANDMUTATE_THRESHOLD:-90}" "${dirs[@]}"
