#!/usr/bin/env bash
# install-protoc.sh — puts the code generators for catalog/grpcfront where
# `go generate` finds them:
#   protoc              Debian's protobuf-compiler (apt-get), if not on PATH
#   protoc-gen-go       google.golang.org/protobuf, pinned to go.mod's version
#   protoc-gen-go-grpc  google.golang.org/grpc/cmd/protoc-gen-go-grpc, pinned
# into ${KATBENCH_CACHE:-$HOME/.cache/katbench}/bin. Idempotent: a tool whose
# pinned version is already there is not reinstalled.
#
#   install-protoc.sh               install, then print the bin dir
#   install-protoc.sh --run CMD...  install, then exec CMD with the bin dir
#                                   first on PATH (what go:generate uses)
set -euo pipefail

PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.5.1

cache="${KATBENCH_CACHE:-$HOME/.cache/katbench}"
bin="$cache/bin"
mkdir -p "$bin"

if ! command -v protoc >/dev/null 2>&1; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "install-protoc: protoc missing and apt-get unavailable; install protobuf-compiler by hand" >&2
		exit 1
	fi
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	# A fresh machine has no package lists; update once, then install.
	if ! $sudo apt-get install -y --no-install-recommends protobuf-compiler >/dev/null 2>&1; then
		$sudo apt-get update >/dev/null
		$sudo apt-get install -y --no-install-recommends protobuf-compiler >/dev/null
	fi
fi

# install_tool PKG VERSION NAME: go install PKG@VERSION into $bin unless the
# stamp file says that exact version is already there.
install_tool() {
	local pkg=$1 version=$2 name=$3
	local stamp="$bin/.$name.version"
	if [ -x "$bin/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
		return
	fi
	GOBIN="$bin" go install "$pkg@$version"
	echo "$version" >"$stamp"
}

install_tool google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO_VERSION" protoc-gen-go
install_tool google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION" protoc-gen-go-grpc

if [ "${1:-}" = "--run" ]; then
	shift
	if [ $# -eq 0 ]; then
		echo "install-protoc: --run needs a command" >&2
		exit 2
	fi
	PATH="$bin:$PATH" exec "$@"
fi
echo "$bin"
