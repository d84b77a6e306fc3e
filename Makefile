# katbench — the commands a newcomer needs are `make test` and
# `go run ./cmd/katbench embedded --quick` (see README.md).

GO      ?= go
export KATBENCH_CACHE ?= $(HOME)/.cache/katbench

.PHONY: test unit integration check bench generate check-generated shellcheck

## test: everything CI runs — vet, generated-code check, shellcheck, unit and integration tests,
## then the race detector over the catalog (lock-free mirror, eventual-mode syncer), both fronts,
## the competitors, the transports, the scenarios and results. Each pass ends with the list of
## skipped tests and why (scripts/testsummary runs go test -json and prints go test's usual lines).
RACE_PKGS = ./catalog/... ./competitors/... ./transport/... ./internal/... ./scenarios/...
test: check
	$(GO) run ./scripts/testsummary -count=1 -timeout 45m ./...
	$(GO) run ./scripts/testsummary -count=1 -race -timeout 30m $(RACE_PKGS)

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
