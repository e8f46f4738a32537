#!/usr/bin/env bash
# Sets up the Kubernetes control plane odek's tests run against
# (internal/kube/kubetest): Debian's etcd-server, installed with apt-get
# when etcd is missing, and kube-apiserver, kube-controller-manager and
# kube-scheduler built from the k8s.io/kubernetes module pinned in
# internal/kube/kubetest/testdata/plane into DIR (default bin/tools) as
# NAME-VERSION, when they are missing. The first build compiles Kubernetes
# (many minutes on a 2-core machine); the Go build cache keeps a rebuild
# cheap. Run by make kube-tools (make test) and, when a program is
# missing, by internal/kube/kubetest. Fails loudly: CI never runs that
# suite against half a plane. ODEK_SKIP_KUBE=1 skips it all.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "kube-tools: $*" >&2; exit 1; }
if [ "${ODEK_SKIP_KUBE:-}" = 1 ]; then
  echo "kube-tools: ODEK_SKIP_KUBE=1: not setting up the Kubernetes control plane (its tests skip)"
  exit 0
fi
if ! command -v etcd >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || die "etcd not found on PATH: install Debian's etcd-server (sudo apt-get install etcd-server), or set ODEK_SKIP_KUBE=1"
  echo "kube-tools: installing Debian's etcd-server"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null; } \
    || die "apt-get install etcd-server failed"
  command -v etcd >/dev/null 2>&1 || die "etcd-server installed but etcd is not on PATH"
fi
dir=${1:-bin/tools}
version=v1.37.2
plane=internal/kube/kubetest/testdata/plane
progs=(kube-apiserver kube-controller-manager kube-scheduler)
missing=()
for p in "${progs[@]}"; do
  [ -x "$dir/$p-$version" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
mkdir -p "$dir"
abs=$(cd "$dir" && pwd)
echo "kube-tools: building ${missing[*]} $version into $dir (a cold Go build cache takes many minutes)"
start=$(date +%s)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pkgs=()
for p in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$p"); done
# The version Kubernetes reports (kubectl version, /version) comes from
# these variables, as its own release build sets them.
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37"
(cd "$plane" && GOWORK=off GOFLAGS=-mod=readonly nice -n 10 go build -trimpath -ldflags "$ldflags" -o "$out/" "${pkgs[@]}") \
  || die "building ${missing[*]} failed"
for p in "${missing[@]}"; do mv "$out/$p" "$abs/$p-$version"; done
echo "kube-tools: built in $(( $(date +%s) - start ))s"
