#!/usr/bin/env bash
# rustfs_up.sh — start RustFS as a local plaintext S3 store: Docker when a
# daemon answers, otherwise a rustfs binary (given, cached, seeded or built).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=rustfs_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

RUSTFS_VERSION=1.0.1
RUSTFS_IMAGE=${KATBENCH_RUSTFS_IMAGE:-rustfs/rustfs:latest}
# Exit status when no way to run RustFS exists here (no Docker, no binary):
# tests treat it as the one allowed skip, even under CI.
EXIT_UNAVAILABLE=3

USAGE="usage: rustfs_up.sh [--port N] [--build] [--install-only]

Starts RustFS $RUSTFS_VERSION, plaintext S3 on 127.0.0.1 only, with a data dir
and keys of its own, waits until it answers S3, and prints:

  eval \"\$(containers/rustfs_up.sh)\"   # KATBENCH_S3_ENDPOINT, AWS_*

How it runs, first match wins:
  1. Docker ($RUSTFS_IMAGE) when a Docker daemon answers
     (KATBENCH_NO_DOCKER=1 skips this).
  2. The binary KATBENCH_RUSTFS_BIN names.
  3. The cached binary \$KATBENCH_CACHE/bin/rustfs-$RUSTFS_VERSION.
  4. Seeded into that cache from the team's prebuilt ../shared/bin/rustfs.xz
     (KATBENCH_RUSTFS_SEED overrides the path; unpacked with xz -dc and
     checked against the sha256 in the README.md beside it; ~10 s once).
  5. Only with --build: compiled from the crates.io sources with
       cargo install rustfs --version $RUSTFS_VERSION --locked \\
         --ignore-rust-version --no-default-features
     into \$KATBENCH_CACHE/rustfs-build. THIS TAKES TWO TO THREE HOURS on 2
     cores and needs about 10 GB of memory, cmake and gcc; it is resumable
     (cargo keeps its target dir) and its progress is cargo's own.
Without any of these it exits $EXIT_UNAVAILABLE and says why.

  --port N          S3 port on 127.0.0.1 (default 9200)
  --build           allow step 5
  --install-only    get the binary (steps 2-5) and exit without starting

Environment: RUSTFS_ACCESS_KEY / RUSTFS_SECRET_KEY (default katbench /
katbench-secret), KATBENCH_STATE_DIR, KATBENCH_CACHE. The console is off
(RUSTFS_CONSOLE_ENABLE=false). Stop it with containers/rustfs_down.sh, which
removes its data dir and state and nothing else."
kb_usage_if_help "$USAGE" "$@"

port=9200
asked= # the port the caller gave, if any
build=0
install_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--port)
		[ $# -ge 2 ] || kb_die "--port needs a value"
		port=$2
		asked=$port
		shift 2
		;;
	--port=*)
		port=${1#--port=}
		asked=$port
		shift
		;;
	--build)
		build=1
		shift
		;;
	--install-only)
		install_only=1
		shift
		;;
	*) kb_die "unknown argument '$1' (see --help)" ;;
	esac
done
kb_valid_port "$port"

# unavailable MSG... logs why RustFS cannot run here and exits EXIT_UNAVAILABLE.
unavailable() {
	kb_log "RustFS unavailable: $*"
	exit "$EXIT_UNAVAILABLE"
}

# seed_path prints where a prebuilt, xz-compressed binary may be.
seed_path() {
	printf '%s\n' "${KATBENCH_RUSTFS_SEED:-$(kb_shared_dir)/bin/rustfs.xz}"
}

# seed_binary DEST unpacks the shared prebuilt binary into DEST after checking
# its sha256 against the README beside it; returns 1 when there is no seed.
seed_binary() {
	local dest=$1 seed readme want got tmp
	seed=$(seed_path)
	[ -f "$seed" ] || return 1
	readme="$(dirname -- "$seed")/README.md"
	want=$(sed -n 's/.*sha256 of the unpacked binary: *\([0-9a-f]\{64\}\).*/\1/p' "$readme" 2>/dev/null | head -n 1)
	[ -n "$want" ] || kb_die "$seed has no sha256 in $readme ('sha256 of the unpacked binary: HEX'); refusing an unverified binary"
	kb_need_cmd xz "to unpack $seed"
	kb_need_cmd sha256sum "to verify $seed"
	kb_log "seeding $dest from $seed (xz -dc, about 10 s once)"
	mkdir -p "$(dirname -- "$dest")"
	tmp="$dest.partial.$$"
	xz -dc "$seed" >"$tmp" || {
		rm -f -- "$tmp"
		kb_die "xz -dc $seed failed"
	}
	got=$(sha256sum "$tmp" | awk '{print $1}')
	if [ "$got" != "$want" ]; then
		rm -f -- "$tmp"
		kb_die "sha256 of the binary unpacked from $seed is $got, but $readme says $want"
	fi
	chmod +x "$tmp"
	mv -f -- "$tmp" "$dest"
}

# build_binary DEST compiles RustFS with cargo into the cache (hours, once).
build_binary() {
	local dest=$1 root
	root="$(kb_cache_dir)/rustfs-build"
	kb_need_cmd cargo "to build RustFS from crates.io (--build)"
	kb_need_cmd cmake "to build aws-lc-sys, a RustFS dependency"
	kb_log "building RustFS $RUSTFS_VERSION with cargo into $root: this takes TWO TO THREE HOURS on 2 cores and ~10 GB of memory; rerun to resume"
	CARGO_TARGET_DIR="$root/target" cargo install rustfs --version "$RUSTFS_VERSION" --locked \
		--ignore-rust-version --no-default-features --root "$root" >&2 ||
		kb_die "cargo install rustfs $RUSTFS_VERSION failed (rerun with --build to resume)"
	mkdir -p "$(dirname -- "$dest")"
	cp -- "$root/bin/rustfs" "$dest.partial.$$"
	mv -f -- "$dest.partial.$$" "$dest"
}

# find_binary prints the rustfs binary to run, getting it into the cache
# when needed; exits EXIT_UNAVAILABLE when there is none.
find_binary() {
	local cached
	if [ -n "${KATBENCH_RUSTFS_BIN:-}" ]; then
		[ -x "$KATBENCH_RUSTFS_BIN" ] || kb_die "KATBENCH_RUSTFS_BIN=$KATBENCH_RUSTFS_BIN is not an executable file"
		printf '%s\n' "$KATBENCH_RUSTFS_BIN"
		return
	fi
	cached="$(kb_cache_dir)/bin/rustfs-$RUSTFS_VERSION"
	if [ ! -x "$cached" ]; then
		kb_lock "$(kb_cache_dir)/bin/.rustfs.lock"
		if [ ! -x "$cached" ] && ! seed_binary "$cached"; then
			if [ "$build" = 1 ]; then
				build_binary "$cached"
			else
				unavailable "no Docker daemon answers, KATBENCH_RUSTFS_BIN is unset, $cached does not exist and there is no prebuilt $(seed_path) to seed it from. Rerun with --build to compile it (two to three hours once), or use containers/minio_up.sh or containers/versitygw_up.sh for a local plaintext S3 store."
			fi
		fi
	fi
	printf '%s\n' "$cached"
}

if [ "$install_only" = 1 ]; then
	bin=$(find_binary)
	kb_log "RustFS binary ready: $bin ($("$bin" --version 2>/dev/null | head -n 1 || echo 'version unknown'))"
	exit 0
fi

access=${RUSTFS_ACCESS_KEY:-katbench}
secret=${RUSTFS_SECRET_KEY:-katbench-secret}
state=$(kb_state_dir rustfs)
# Healthy once S3 answers: anonymous ListBuckets gets 403 (or 200). While it
# initialises RustFS already speaks HTTP but answers 503.
healthy() {
	case "$(kb_http_code "http://127.0.0.1:$(cat "$state/port")/")" in
	2?? | 4??) return 0 ;;
	*) return 1 ;;
	esac
}
kb_refuse_other_port "$state" "$asked"
kb_existing "$state" healthy
kb_require_free_port "$port" "RustFS"
kb_need_cmd curl "health checks"

if kb_docker_ok; then
	kb_undo_on_failure "$HERE/rustfs_down.sh"
	mkdir -p "$state/data"
	printf '%s\n' "$port" >"$state/port"
	kb_log "starting $RUSTFS_IMAGE with Docker on 127.0.0.1:$port"
	cid=$(timeout 600 docker run -d -p "127.0.0.1:$port:9000" \
		-e RUSTFS_ACCESS_KEY="$access" -e RUSTFS_SECRET_KEY="$secret" \
		-e RUSTFS_CONSOLE_ENABLE=false \
		-v "$state/data:/data" "$RUSTFS_IMAGE") || kb_die "docker run $RUSTFS_IMAGE failed"
	printf '%s\n' "$cid" >"$state/container"
	kb_wait_ready "$state" 120 RustFS healthy
else
	# No state exists yet: a missing binary leaves nothing behind.
	bin=$(find_binary)
	kb_undo_on_failure "$HERE/rustfs_down.sh"
	mkdir -p "$state/data"
	printf '%s\n' "$port" >"$state/port"
	kb_log "starting $bin on 127.0.0.1:$port (data $state/data, log $state/log)"
	kb_start_bg "$state" env -C "$state" RUSTFS_ACCESS_KEY="$access" RUSTFS_SECRET_KEY="$secret" \
		RUSTFS_CONSOLE_ENABLE=false \
		"$bin" server --address "127.0.0.1:$port" "$state/data"
	kb_wait_ready "$state" 120 RustFS healthy
fi

kb_write_exports "$state" \
	"KATBENCH_S3_ENDPOINT=http://127.0.0.1:$port" \
	"AWS_ACCESS_KEY_ID=$access" \
	"AWS_SECRET_ACCESS_KEY=$secret" \
	"AWS_REGION=us-east-1"
kb_log "RustFS ready at http://127.0.0.1:$port"
kb_print_exports "$state"
