# katbench — the commands a newcomer needs are `make test` and
# `go run ./cmd/katbench embedded --quick` (see README.md).

GO      ?= go
export KATBENCH_CACHE ?= $(HOME)/.cache/katbench

.PHONY: test test-k8s setup build image unit integration check bench generate check-generated shellcheck readme readme-check bench-gate

## test: everything CI runs — setup (installs and compiles the real servers, with progress), vet,
## generated-code check, shellcheck, unit and integration tests, then the race detector over the
## catalog (lock-free mirror, eventual-mode syncer), both fronts, the competitors, the transports,
## the scenarios and results. Each pass ends with the list of skipped tests and why
## (scripts/testsummary runs go test -json and prints go test's usual lines).
## The race pass leaves out the allocation-count test (the race detector changes allocations; it runs
## in the first pass), so no test skips under CI=true.
RACE_PKGS = ./bench/... ./catalog/... ./competitors/... ./transport/... ./internal/... ./scenarios/...
test: setup check
	$(GO) run ./scripts/testsummary -count=1 -timeout 45m ./...
	$(GO) run ./scripts/testsummary -count=1 -race -timeout 30m -skip '^TestWarmReadAllocations$$' $(RACE_PKGS)

## setup: install and compile every real server and tool the tests use, with progress
## (cold: the whole `make test` took 28 min on a 2-core machine, setup 15.5 min of it — see docs/setup.md; warm: about a minute).
setup:
	scripts/setup.sh

## build: put a katbench binary in ./katbench (or: go install ./cmd/katbench).
build:
	$(GO) build -o katbench ./cmd/katbench

## image: katbench's container image as an OCI image-layout tar (IMAGE_OUT), built without Docker or a
## registry: a static binary (CGO_ENABLED=0), /tmp, CA certificates and a non-root user, nothing pulled.
## `ctr -n k8s.io images import katbench-image.tar` loads it; IMAGE_ROOTFS=DIR also writes the tree that
## containers/Dockerfile builds FROM scratch. See containers/k8s/README.md.
IMAGE_NAME   ?= katbench:dev
IMAGE_OUT    ?= katbench-image.tar
IMAGE_ROOTFS ?=
image:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(or $(TMPDIR),/tmp)/katbench-image-bin ./cmd/katbench
	$(GO) run ./containers/k8s/ociimage -binary $(or $(TMPDIR),/tmp)/katbench-image-bin -name $(IMAGE_NAME) -o $(IMAGE_OUT) $(if $(IMAGE_ROOTFS),-rootfs $(IMAGE_ROOTFS))
	rm -f $(or $(TMPDIR),/tmp)/katbench-image-bin

## test-k8s: the Kubernetes tests alone — build Kubernetes v1.34.4 (cached; containers/k8s/build.sh), bring
## up a single-node cluster in a network namespace (cluster_up.sh), run `katbench cluster run` with 3 workers
## and with a failing worker against `katbench serve rest` in the cluster, remove the cluster. Needs root. Not part of
## `make test` (see containers/k8s/README.md).
test-k8s:
	containers/k8s/build.sh >/dev/null
	$(GO) test -tags k8s -count=1 -timeout 30m -run '^TestClusterRun$$' -v ./containers/k8s/

## unit: the tests that need no outside server (quick feedback).
unit:
	$(GO) test -short -count=1 ./catalog/... ./competitors/... ./scenarios/... ./internal/...

## integration: the end-to-end runs against real servers started by containers/.
integration:
	$(GO) test -count=1 -timeout 30m -v ./integration/...

## check: vet, gofmt, generated code, shellcheck, the generated README/docs tables against the history,
## and the README's lists (every package, go.mod requirement and command named).
check: check-generated shellcheck readme-check
	$(GO) vet ./...
	$(GO) test -count=1 -run '^(TestReadmeFrontDoor|TestReadmeNamesEveryPackage|TestDocsNameEveryDependency|TestReadmeNamesEveryCommand|TestDocsTablesAreGenerated)$$' ./cmd/katbench/
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

## generate: regenerate protobuf/gRPC code with the pinned tools.
generate:
	$(GO) generate ./...

check-generated:
	scripts/check-generated.sh

shellcheck:
	containers/check.sh

## bench: Go micro-benchmarks of the hot paths.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./catalog/ ./internal/results/

## readme: regenerate the result tables of README.md and the docs pages from the labelled runs in
## bench_history.jsonl (and docs/labels.tsv), and the generated lists from the registries.
readme:
	$(GO) run ./cmd/katbench readme

## readme-check: fail when a generated block of README.md or a docs page differs from the history.
readme-check:
	$(GO) run ./cmd/katbench readme --check

## bench-gate: regression gate, not part of `make test` — `katbench ab` of the merge base of
## BENCH_GATE_BASE (default main) against HEAD, both built from clean checkouts of their commits
## (uncommitted changes are not measured), BENCH_GATE_RUNS runs a side in ABBA order on a small,
## fast scenario set; fails (exit 1) on a significant regression beyond the thresholds. Lines go to
## BENCH_GATE_OUT; BENCH_GATE_FLAGS adds ab flags (--max-load, --cooldown, --margin). See docs/compare.md for the rules and for running it in CI.
BENCH_GATE_BASE ?= main
BENCH_GATE_RUNS ?= 8
BENCH_GATE_ARGS ?= run rest --quick --rounds 3 --scenario control.latency,load_table.latency,table_exists.latency
BENCH_GATE_FLAGS ?=
BENCH_GATE_OUT  ?= $(or $(TMPDIR),/tmp)/bench-gate-$(shell date -u +%Y%m%dT%H%M%SZ).jsonl
bench-gate:
	base=$$(git merge-base $(BENCH_GATE_BASE) HEAD) && \
	$(GO) run ./cmd/katbench ab --old "$$base" --new HEAD --runs $(BENCH_GATE_RUNS) --out $(BENCH_GATE_OUT) $(BENCH_GATE_FLAGS) -- $(BENCH_GATE_ARGS)
