#!/usr/bin/env bash
# Mutation testing of the security- and contract-critical code, one package at
# a time (make mutate). For each target gremlins changes one operator at a time
# (a flipped comparison, a negated condition, a changed boundary or sign, a
# swapped && / ||), runs that package's tests, and counts the changes no test
# noticed ("LIVED"). Survivors listed in scripts/mutate-equivalent.txt were
# judged equivalent (no behaviour changes) and are left out of the adjusted
# efficacy; any other survivor is printed so it can be closed with a test.
#
# Usage: scripts/mutate.sh [target ...]
#   target = package dir, optionally with the only files to mutate:
#   internal/redact  or  internal/loop:loop.go,trim.go; or a default target's short
#   name (risk, loop, wire, exitcode)
# Environment: GREMLINS (binary), MUTATE_WORKERS (default 1: the machine is
# shared), MUTATE_THRESHOLD (adjusted efficacy each target must reach, default 90),
# MUTATE_LOGS (a directory to keep gremlins' full output in), MUTATE_TIMEOUT
# (gremlins' --timeout-coefficient, default 10: a mutant's test run may take
# that many times the unmutated run before it counts as timed out), MUTATE_MEMORY_KIB
# (virtual memory each process may map, default 8 GiB: a mutant that removes a size
# bound must fail its test, not take the machine's memory; an out-of-memory test
# counts as killed), MUTATE_UNCOVERED (default 1: apply the mutants gremlins
# reports NOT COVERED by hand, scripts/handmutate -uncovered; 0 skips them).
#
# --test-cpu is deliberately not passed: with it gremlins v0.6.0 reports every
# mutant as killed.
set -euo pipefail
cd "$(dirname "$0")/.."

gremlins=${GREMLINS:-bin/tools/gremlins-v0.6.0}
workers=${MUTATE_WORKERS:-1}
timeout=${MUTATE_TIMEOUT:-10}
threshold=${MUTATE_THRESHOLD:-90}
memory=${MUTATE_MEMORY_KIB:-8388608}
equiv=scripts/mutate-equivalent.txt

defaults=(internal/redact internal/artifact internal/budget internal/config
  internal/mcpclient internal/approval internal/events
  internal/risk internal/policy internal/builtin internal/session internal/subagent
  internal/subagent/wire internal/subagent/childside internal/outschema internal/llm
  internal/loop:loop.go,summary.go,answer.go,trim.go internal/exitcode
  internal/sandbox internal/proc internal/cassette)
if [ $# -eq 0 ]; then
  set -- "${defaults[@]}"
fi
# A short name (risk, loop, odek) is the default target of that package.
targets=()
for t in "$@"; do
  case $t in
  */* | *:*) targets+=("$t") ;;
  *)
    found=
    for d in "${defaults[@]}"; do
      base=${d%%:*}
      if [ "${base##*/}" = "$t" ]; then found=$d; fi
    done
    [ -n "$found" ] || { echo "mutate: no default target is named $t"; exit 2; }
    targets+=("$found") ;;
  esac
done
set -- "${targets[@]}"

if [ -n "${MUTATE_LOGS:-}" ]; then
  logdir=$MUTATE_LOGS
  mkdir -p "$logdir"
else
  logdir=$(mktemp -d "${TMPDIR:-/tmp}/odek-mutate.XXXXXX")
  trap 'rm -rf "$logdir"' EXIT
fi

# exclusions prints -E flags for every non-test Go file of dir not in the
# comma-separated keep list (empty list: mutate every file), and for every
# file of a subpackage (gremlins walks the tree; internal/subagent/wire is its
# own target, tested by its own tests).
exclusions() {
  local dir=$1 keep=$2 f
  printf -- '-E\n/\n'
  [ -n "$keep" ] || return 0
  for f in "$dir"/*.go; do
    f=${f##*/}
    case $f in *_test.go) continue ;; esac
    case ",$keep," in *",$f,"*) continue ;; esac
    printf -- '-E\n^%s$\n' "${f//./\\.}"
  done
}

summary=()
failed=0
for target in "$@"; do
  dir=${target%%:*}
  keep=
  [ "$dir" = "$target" ] || keep=${target#*:}
  if [ ! -d "$dir" ]; then
    echo "mutate: $dir does not exist, skipped"
    continue
  fi
  log="$logdir/${dir//\//_}.log"
  mapfile -t excl < <(exclusions "$dir" "$keep")
  echo "== mutate $target"
  start=$SECONDS
  # A package whose suite is slow runs its fast tests for each mutant: go
  # test takes test flags from GOFLAGS, and gremlins passes none of its own.
  # builtin's sandbox escape and process-reaping tests (~20 s of its 25) are
  # left out and -short runs the path-swap race fewer rounds; the mutants
  # only they would kill are in shell_unix.go's process handling, which the
  # hand mutations cover (scripts/hand-mutations.txt). llm's two slowest
  # timeout tests (5 s) repeat what its shorter timeout tests check.
  # mcpclient skips nothing: its slow tests (progress deadlines, killing a
  # stubborn server) are the only checks of that code. They mostly wait,
  # so more of them run at once than go test's default of one per CPU.
  # -count=1: gremlins times each mutant's run against its coverage run,
  # which go test's cache can answer in under a second; every mutant would
  # then time out (seen on mcpclient: 36 of 141, each killed in 16 s by hand).
  goflags="${GOFLAGS:-} -count=1"
  case $dir in
  internal/builtin) goflags="$goflags -short -skip=^(TestDescendantsSurviveWithoutLauncher|TestNoDescendantSurvives|TestSandboxEscapesControl|TestSandboxEscapes|TestSandboxNormalWork)\$" ;;
  internal/llm) goflags="$goflags -skip=^(TestCommentsOnlyStreamHitsRequestTimeout|TestIdleTimeoutMovesWithEveryChunk)\$" ;;
  internal/mcpclient) goflags="$goflags -parallel=8" ;;
  esac
  (ulimit -v "$memory" && GOFLAGS=$goflags exec "$gremlins" unleash --workers "$workers" --timeout-coefficient "$timeout" --invert-logical "${excl[@]}" "./$dir") >"$log" 2>&1 || {
    cat "$log"
    echo "mutate: gremlins failed on $target"
    exit 1
  }
  count() { grep -cE "^ *$1 " "$log" || true; }
  uncovered=$(count "NOT COVERED")
  # The mutants gremlins cannot see run (NOT COVERED: switch cases, code in
  # a re-executed test binary such as the sandbox's launcher) are applied
  # here, each with gremlins' operator at its position, and counted with the
  # rest (MUTATE_UNCOVERED=0 skips this).
  hand=0
  if [ "$uncovered" -gt 0 ] && [ "${MUTATE_UNCOVERED:-1}" != 0 ]; then
    GOFLAGS="$goflags -failfast" go run ./scripts/handmutate -uncovered "$log" "$dir" >"$log.uncovered" 2>&1 || {
      cat "$log.uncovered"
      echo "mutate: applying gremlins' not covered mutants failed on $target"
      exit 1
    }
    cat "$log.uncovered" >>"$log"
    hand=$(grep -cE '^ *(KILLED|LIVED) ' "$log.uncovered" || true)
    uncovered=$((uncovered - hand))
  fi
  killed=$(count KILLED)
  lived=$(count LIVED)
  timedout=$(count "TIMED OUT")
  # Survivors as "dir/file:line:col MUTATOR", split into listed and new.
  grep -E '^ *LIVED ' "$log" | awk -v d="$dir" '{print d "/" $4 " " $2}' | sort >"$log.lived" || true
  grep -vE '^[[:space:]]*(#|$)' "$equiv" 2>/dev/null | awk '{print $1 " " $2}' | sort -u >"$log.equiv" || true
  comm -12 "$log.lived" "$log.equiv" >"$log.known"
  comm -23 "$log.lived" "$log.equiv" >"$log.new"
  known=$(wc -l <"$log.known")
  # Stale: a listed entry of a mutated file that no longer survives (with a
  # keep list, only its files were mutated; a subpackage's files are not).
  stale=$(awk -v d="$dir/" -v keep=",$keep," 'index($1, d) == 1 {
      f = substr($1, length(d) + 1); sub(/:.*/, "", f)
      if (index(f, "/")) next # a file of a subpackage: its own target
      if (keep == ",," || index(keep, "," f ",")) print }' "$log.equiv" | comm -23 - "$log.lived")
  raw=$(awk -v k="$killed" -v l="$lived" 'BEGIN { if (k + l == 0) print "n/a"; else printf "%.2f", 100 * k / (k + l) }')
  adj=$(awk -v k="$killed" -v l="$((lived - known))" 'BEGIN { if (k + l == 0) print "100.00"; else printf "%.2f", 100 * k / (k + l) }')
  if [ -s "$log.new" ]; then
    echo "survivors not listed as equivalent:"
    sed 's/^/  /' "$log.new"
  fi
  if [ "$timedout" -gt 0 ]; then
    echo "$timedout mutants timed out (a busy machine makes this happen): they count neither way; rerun, or raise MUTATE_TIMEOUT"
  fi
  if [ -n "$stale" ]; then
    echo "listed as equivalent but not a survivor now (update $equiv):"
    printf '  %s\n' "$stale"
  fi
  line=$(printf '%-34s killed %4d  lived %3d (equivalent %2d)  timed out %2d  not covered %3d (%d run by hand)  efficacy %6s%%  adjusted %6s%%  (%ds)' \
    "$target" "$killed" "$lived" "$known" "$timedout" "$uncovered" "$hand" "$raw" "$adj" "$((SECONDS - start))")
  echo "$line"
  summary+=("$line")
  if awk -v a="$adj" -v t="$threshold" 'BEGIN { exit !(a < t) }'; then
    failed=1
  fi
done

echo
echo "== mutation efficacy per target (adjusted = equivalent survivors left out; threshold $threshold%)"
printf '%s\n' "${summary[@]}"
exit $failed
