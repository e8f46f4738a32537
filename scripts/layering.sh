#!/usr/bin/env bash
# Enforces docs/ARCHITECTURE.md: which internal package may import which,
# and what cmd/odek may import. Leaf packages import no other internal
# package; internal/cli holds the commands, internal/agentrun a run's
# assembly, internal/runview what a run shows, and cmd/odek only the
# process around them.
# A nested package (subagent/wire) has its own entry; one without an entry
# is checked as part of its top directory's.
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
  [reporoot]=""
  [agentsmd]="reporoot"
  [flaghint]="suggest"
  [syncbuf]=""
  [outschema]="untrusted"
  [atomicfile]=""
  [cassette]=""
  [safepath]=""
  [plan]="untrusted msgkind"
  [prompt]=""
  [session]="llm msgkind untrusted atomicfile errclass"
  [llm]="errclass msgkind liveness telemetry"
  [msgkind]=""
  [fakellm]=""
  [config]="budget errclass mcpclient redact suggest hooks reporoot"
  [loop]="llm msgkind budget events errclass redact untrusted risk liveness hooks telemetry"
  [liveness]="errclass"
  [telemetry]=""
  [risk]=""
  [policy]="risk untrusted errclass liveness"
  [builtin]="risk events untrusted artifact safepath proc sandbox liveness telemetry"
  [sandbox]="procfs safepath"
  [procfs]=""
  [childkey]=""
  [proc]="sandbox procfs"
  [mcpclient]="artifact errclass untrusted redact proc sandbox risk telemetry"
  [approval]="mcpclient errclass untrusted atomicfile hooks"
  [hooks]="events errclass llm proc sandbox telemetry"
  [subagent]="subagent/wire artifact budget events risk untrusted proc liveness hooks telemetry"
  [subagent/wire]="artifact errclass llm untrusted"
  [subagent/childside]="subagent/wire artifact budget events untrusted safepath"
  [iostreams]="untrusted"
  [exitcode]="budget errclass events"
  [runview]="artifact budget errclass events exitcode hooks iostreams liveness llm loop mcpclient outschema policy prompt subagent/wire untrusted"
  [agentrun]="acp agentsmd approval artifact atomicfile budget builtin cassette childkey config errclass events exitcode hooks iostreams liveness llm loop mcpclient msgkind outschema plan policy proc prompt redact risk runview sandbox session subagent subagent/childside subagent/wire suggest telemetry untrusted"
  [testbin]=""
  [kube/kubetest]=""
  [cli]="acp agentrun approval artifact config errclass exitcode flaghint iostreams runview session subagent/wire suggest untrusted"
  [acp]="approval budget config events liveness llm mcpclient plan policy risk session untrusted"
  [kube]="subagent/wire errclass untrusted"
)
# entry is the allowed[] key of an internal package: its own, else its top
# directory's.
entry() {
  if [ -n "${allowed[$1]+x}" ]; then echo "$1"; else echo "${1%%/*}"; fi
}
# Edges no entry may allow, whatever the table says: nothing below the
# commands imports them, what a run shows never knows the run's
# assembly, and only tests use the Kubernetes test plane.
forbidden=("* cli" "runview agentrun" "* kube/kubetest")
# cmd/odek is main only: the process (non-dumpable, the subreaper,
# signals; childkey, whose init runs first), then cli.Main. The sandbox
# launcher runs from internal/sandbox's own init.
# cmd/odek-kube is the kubernetes runner's helper: childkey, then kube.Main.
declare -A cmd_allowed=(
  [cmd/odek]="childkey cli iostreams exitcode agentrun proc"
  [cmd/odek-kube]="childkey kube"
)
# client-go registers every API group at init and is large: only the
# kubernetes runner's helper (and the tests' plane) link it (docs/SCALE.md),
# never odek.
k8s_allowed="internal/kube internal/kube/kubetest cmd/odek-kube"
listing=$(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./internal/... | sed "s#^$mod/##")
fail=0
while read -r pkg imports; do
  key=$(entry "$pkg")
  if [ -z "${allowed[$key]+x}" ]; then
    echo "layering: internal/$pkg has no entry in scripts/layering.sh"
    fail=1
    continue
  fi
  for imp in $imports; do
    case "$imp" in
      k8s.io/*)
        if [[ " $k8s_allowed " != *" internal/$key "* ]]; then
          echo "layering: internal/$pkg must not import $imp: only internal/kube and cmd/odek-kube link client-go (docs/SCALE.md)"
          fail=1
        fi
        continue ;;
      "$mod"/*) ;;
      *) continue ;;
    esac
    d=$(entry "${imp#"$mod"/}")
    [ "$d" = "$key" ] && continue
    for f in "${forbidden[@]}"; do
      from=${f%% *} to=${f#* }
      if [ "$d" = "$to" ] && { [ "$from" = "*" ] || [ "$from" = "$key" ]; }; then
        echo "layering: internal/$pkg must never import internal/$d (see docs/ARCHITECTURE.md)"
        fail=1
      fi
    done
    if [[ " ${allowed[$key]} " != *" $d "* ]]; then
      echo "layering: internal/$pkg must not import internal/$d (see docs/ARCHITECTURE.md)"
      fail=1
    fi
  done
done <<<"$listing"
cmds=$(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./cmd/... | sed "s#^github.com/odek-run/odek/##")
while read -r pkg imports; do
  if [ -z "${cmd_allowed[$pkg]+x}" ]; then
    echo "layering: $pkg has no entry in scripts/layering.sh"
    fail=1
    continue
  fi
  for imp in $imports; do
    case "$imp" in
      k8s.io/*)
        if [[ " $k8s_allowed " != *" $pkg "* ]]; then
          echo "layering: $pkg must not import $imp: only internal/kube and cmd/odek-kube link client-go (docs/SCALE.md)"
          fail=1
        fi
        continue ;;
      "$mod"/*) ;;
      *) continue ;;
    esac
    d=$(entry "${imp#"$mod"/}")
    if [[ " ${cmd_allowed[$pkg]} " != *" $d "* ]]; then
      echo "layering: $pkg must not import internal/$d: main keeps the process only, the rest is internal/cli's (see docs/ARCHITECTURE.md)"
      fail=1
    fi
  done
done <<<"$cmds"
exit $fail
