# odek — one entry point for building, testing and the offline demo.
GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/odek-run/odek/internal/cli.version=$(VERSION)
KUBE_LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build test test-short bench demo lint cross fuzz mutate hand-mutate interop-deps kube-tools clean

# CGO_ENABLED=0: a static binary is ~1.5 MB smaller, starts faster and has a
# lower RSS (the pure-Go DNS resolver is all odek needs).
build:
	@mkdir -p $(BIN)
	@echo "building bin/odek, bin/odek-kube and bin/fakellm (the first build compiles every dependency: a minute or more)"
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/odek ./cmd/odek
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(KUBE_LDFLAGS)' -o $(BIN)/odek-kube ./cmd/odek-kube
	$(GO) build -trimpath -o $(BIN)/fakellm ./internal/fakellm/cmd/fakellm

# The one test command: vet and layering checks, the race-enabled suite
# (interop tests against the npm MCP servers included), short fuzz smoke runs.
# scripts/testprogress prints go test's own package lines, every failed
# test's output, and a line per finished end-to-end script, so the minutes
# cmd/odek takes are not silent. TESTP packages are tested at once (go's
# default is one per CPU): most packages' tests wait on processes, pipes and
# deadlines rather than compute, and the many small packages' link-and-run
# seconds then overlap the few slow ones. docs/TESTING.md has the figures.
TESTP ?= 4
test: interop-deps kube-tools lint cross
	@echo "make test: compiling the race-enabled test binaries, then running them (a cold build cache takes minutes before the first package line)"
	@bash -o pipefail -c 'ODEK_INTEROP_REQUIRED=1 $(GO) test -p $(TESTP) -race -count=1 -json ./... | $(GO) run ./scripts/testprogress'
	@echo "make test: the Kubernetes test node's own module (internal/kube/kubetest/testdata/nodeagent)"
	cd internal/kube/kubetest/testdata/nodeagent && GOWORK=off $(GO) test -count=1 ./...
	$(MAKE) --no-print-directory fuzz FUZZTIME=3000x

# The quick loop while working: no race detector, no lint, no fuzzing, and
# tests that repeat an attack or a crash many times run fewer rounds (-short).
# The tests against a real Kubernetes control plane skip themselves here.
test-short:
	@echo "make test-short: the tests against a real Kubernetes control plane (internal/kube/kubetest) are skipped; make test runs them"
	@bash -o pipefail -c '$(GO) test -p $(TESTP) -short -json ./... | $(GO) run ./scripts/testprogress'

# Every fuzz target, briefly (FUZZTIME=60s for a real session). make test runs
# a fixed number of inputs rather than a duration: a short -fuzztime can end
# while a busy machine is still replaying the corpus, which go test reports as
# "context deadline exceeded" though nothing failed.
FUZZTIME ?= 10s
fuzz:
	@scripts/fuzz.sh $(FUZZTIME)

# Every benchmark, about a minute and a half. First the speed contract's goals
# (issue 23), each figure beside its limit, as ratios to the floor
# (testdata/bench/bareloop) measured in the same rounds: cmd/odek
# BenchmarkSpeedGoals (start-up, overhead per iteration, peak RSS, package
# initializers, --events-jsonl on/off) and internal/llm
# BenchmarkRequestEncoding (per-request encoding at 1,000 messages over 100).
# ODEK_SPEED_BASELINE=path/to/odek adds an older build to the same rounds;
# ODEK_SPEED_ROUNDS sets the rounds (default 9). Then everything else:
# BenchmarkFirstRequest, BenchmarkVersionInit, BenchmarkDelegateToFirstRequest,
# internal/mcpclient BenchmarkResult20MiB, internal/session BenchmarkSave1000,
# internal/builtin BenchmarkSearchVsGrep, …
bench:
	@uptime
	$(GO) test -run='^$$' -bench='^BenchmarkSpeedGoals$$' -benchtime=1x ./cmd/odek
	$(GO) test -run='^$$' -bench='^BenchmarkRequestEncoding$$' -benchtime=300ms ./internal/llm
	$(GO) test -run='^$$' -bench=. -skip='^(BenchmarkSpeedGoals|BenchmarkRequestEncoding)$$' -benchmem -count=1 ./...

# The other systems: macOS builds whole (no kernel sandbox there: odek warns
# once and relies on the classifier); Windows is not supported, and its
# build is a main that says so (cmd/odek/unsupported.go).
cross:
	@echo "cross: building for macOS and Windows"
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build -o /dev/null ./cmd/odek

STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(BIN)/tools/staticcheck-$(STATICCHECK_VERSION)

lint: $(STATICCHECK)
	@echo "lint: gofmt, go mod tidy, go vet, staticcheck, layering"
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@scripts/layering.sh

# staticcheck is pinned and installed into bin/tools from the Go module proxy.
$(STATICCHECK):
	@mkdir -p $(BIN)/tools
	GOBIN=$(CURDIR)/$(BIN)/tools GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(BIN)/tools/staticcheck $@

# Mutation testing of the security- and contract-critical packages, one at a
# time, printing efficacy per package (slow: not part of make test): gremlins'
# operator mutants, then the hand mutations; each package must kill 90% of
# both. MUTATE='internal/redact internal/exitcode' (or MUTATE='risk loop')
# picks targets.
GREMLINS_VERSION := v0.6.0
GREMLINS := $(BIN)/tools/gremlins-$(GREMLINS_VERSION)
MUTATE ?=

mutate: $(GREMLINS)
	@GREMLINS=$(GREMLINS) scripts/mutate.sh $(MUTATE)
	@scripts/hand-mutate.sh $(MUTATE)

# One package alone, gremlins' mutants and the hand mutations of
# scripts/hand-mutations.txt, same gate: make mutate-risk, make mutate-loop.
mutate-%: $(GREMLINS)
	@GREMLINS=$(GREMLINS) scripts/mutate.sh $*
	@scripts/hand-mutate.sh $*

# The hand mutations alone (fast): make hand-mutate, make hand-mutate-risk.
hand-mutate:
	@scripts/hand-mutate.sh $(MUTATE)

hand-mutate-%:
	@scripts/hand-mutate.sh $*

$(GREMLINS):
	@mkdir -p $(BIN)/tools
	GOBIN=$(CURDIR)/$(BIN)/tools GOFLAGS= $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)
	mv $(BIN)/tools/gremlins $@

interop-deps:
	@scripts/install-mcp-peers.sh

# The Kubernetes control plane the kubernetes runner's tests run against:
# Debian's etcd-server (installed with apt-get when missing) and
# kube-apiserver, kube-controller-manager and kube-scheduler built from
# k8s.io/kubernetes into bin/tools when missing (internal/kube/kubetest;
# docs/TESTING.md has the build's cost). ODEK_SKIP_KUBE=1 skips that suite.
kube-tools:
	@scripts/kube-tools.sh

demo: build
	@scripts/demo.sh

clean:
	rm -rf $(BIN)
