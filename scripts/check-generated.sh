#!/usr/bin/env bash
# check-generated.sh — fails (exit 1, with a diff) when committed generated
# protobuf/gRPC code is stale. For every package directory holding a .proto
# file and a //go:generate line, it copies the .proto and .go sources into a
# temporary tree laid out like the repo (scripts/ linked in), runs that exact
# go:generate command there, and diffs the regenerated *.pb.go against the
# committed ones. The repo itself is never written.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

ln -s "$root/scripts" "$tmp/scripts"

stale=0
checked=0
while IFS= read -r dir; do
	rel="${dir#"$root"/}"
	src="$root/$rel"
	gen_line="$(grep -h '^//go:generate ' "$src"/*.go 2>/dev/null | head -n1 || true)"
	if [ -z "$gen_line" ]; then
		echo "check-generated: $rel has a .proto but no //go:generate line" >&2
		stale=1
		continue
	fi
	work="$tmp/$rel"
	mkdir -p "$work"
	cp "$src"/*.proto "$work"/
	(cd "$work" && eval "${gen_line#//go:generate }")
	for name in $( (cd "$src" && ls -1 -- *.pb.go 2>/dev/null; cd "$work" && ls -1 -- *.pb.go 2>/dev/null) | sort -u); do
		if ! diff -u "$src/$name" "$work/$name" >"$tmp/diff.out" 2>&1; then
			echo "check-generated: $rel/$name is stale; run 'go generate ./$rel'" >&2
			cat "$tmp/diff.out" >&2
			stale=1
		fi
	done
	checked=$((checked + 1))
done < <(find "$root" -path "$root/.git" -prune -o -name '*.proto' -printf '%h\n' | sort -u)

if [ "$checked" -eq 0 ] && [ "$stale" -eq 0 ]; then
	echo "check-generated: no .proto files found under $root" >&2
	exit 1
fi
if [ "$stale" -ne 0 ]; then
	exit 1
fi
echo "check-generated: generated code is up to date ($checked package(s))"
