#!/usr/bin/env bash
# Runs every Fuzz target in the module for a short time each.
#
# Each package's fuzz-instrumented test binary is built once (go test -c
# -fuzz) and run once per target, from the package directory (its
# testdata/fuzz corpus) with go test's own fuzz cache: "go test -fuzz" per
# target linked the same binary again for every target, which was most of
# the time of a short run.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-10s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache="$(go env GOCACHE)/fuzz"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/func //' | sort -u || true)
  [ -n "$targets" ] || continue
  bin="$tmp/$(basename "$pkg").fuzz"
  go test -c -fuzz=. -o "$bin" "$pkg" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  for f in $targets; do
    echo "fuzz $pkg $f ($t)"
    (cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^$f\$" -test.fuzztime="$t" \
      -test.fuzzcachedir="$cache/$pkg") >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  done
done
