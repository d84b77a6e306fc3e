# katbench — the commands a newcomer needs are `make test` and
# `go run ./cmd/katbench embedded --quick` (see README.md).

GO      ?= go
export KATBENCH_CACHE ?= $(HOME)/.cache/katbench

.PHONY: test setup build unit integration check bench generate check-generated shellcheck

## test: everything CI runs — setup, vet, generated-code check, shellcheck, unit and integration tests.
## The summary lists every skipped test with its reason and the output of every failure.
test: setup check
	$(GO) test -count=1 -timeout 45m -json ./... | $(GO) run ./internal/testsummary
	$(GO) test -count=1 -race -timeout 15m ./transport/uring/... ./internal/... ./scenarios/...

## setup: install and compile every real server and tool the tests use, with progress
## (cold: the Go modules, versitygw and the Polaris build take 10+ min each on 2 cores; warm: under a minute).
setup:
	scripts/setup.sh

## build: put a katbench binary in ./katbench (or: go install ./cmd/katbench).
build:
	$(GO) build -o katbench ./cmd/katbench

## unit: the tests that need no outside server (quick feedback).
unit:
	$(GO) test -short -count=1 ./catalog/... ./competitors/... ./scenarios/... ./internal/...

## integration: the end-to-end runs against real servers started by containers/.
integration:
	$(GO) test -count=1 -timeout 30m -v ./integration/...

check: check-generated shellcheck
	$(GO) vet ./...
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
