#!/usr/bin/env bash
# rustfs_up.sh — start RustFS (Docker only) as a local plaintext S3 store.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=rustfs_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

RUSTFS_IMAGE=${KATBENCH_RUSTFS_IMAGE:-rustfs/rustfs:latest}

USAGE="usage: rustfs_up.sh [--port N]

Starts RustFS ($RUSTFS_IMAGE, plaintext S3 on the container's :9000) with
Docker, published on 127.0.0.1 only, with a temp data dir. RustFS needs
Docker: without a Docker engine this exits non-zero; use
containers/minio_up.sh or containers/versitygw_up.sh as the local plaintext
stand-ins. Prints:

  eval \"\$(containers/rustfs_up.sh)\"   # KATBENCH_S3_ENDPOINT, AWS_*

  --port N   host port (default 9200)

Environment: RUSTFS_ACCESS_KEY / RUSTFS_SECRET_KEY (default katbench /
katbench-secret). Stop it with containers/rustfs_down.sh."
kb_usage_if_help "$USAGE" "$@"

port=$(kb_port_option 9200 "$@")

if ! kb_docker_ok; then
	kb_die "RustFS needs Docker and no Docker engine answers here ('docker info' failed). Use containers/minio_up.sh or containers/versitygw_up.sh for a local plaintext S3 store instead."
fi

access=${RUSTFS_ACCESS_KEY:-katbench}
secret=${RUSTFS_SECRET_KEY:-katbench-secret}
state=$(kb_state_dir rustfs)
healthy() { kb_http_answers "http://127.0.0.1:$(cat "$state/port")/"; }
kb_existing "$state" healthy
kb_require_free_port "$port" "RustFS"
kb_undo_on_failure "$HERE/rustfs_down.sh"
kb_need_cmd curl "health checks"

mkdir -p "$state/data"
printf '%s\n' "$port" >"$state/port"
kb_log "starting $RUSTFS_IMAGE with Docker on 127.0.0.1:$port"
cid=$(timeout 600 docker run -d -p "127.0.0.1:$port:9000" \
	-e RUSTFS_ACCESS_KEY="$access" -e RUSTFS_SECRET_KEY="$secret" \
	-v "$state/data:/data" "$RUSTFS_IMAGE") || kb_die "docker run $RUSTFS_IMAGE failed"
printf '%s\n' "$cid" >"$state/container"
kb_wait_ready "$state" 120 RustFS healthy

kb_write_exports "$state" \
	"KATBENCH_S3_ENDPOINT=http://127.0.0.1:$port" \
	"AWS_ACCESS_KEY_ID=$access" \
	"AWS_SECRET_ACCESS_KEY=$secret" \
	"AWS_REGION=us-east-1"
kb_log "RustFS ready at http://127.0.0.1:$port"
kb_print_exports "$state"
