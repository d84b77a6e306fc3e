#!/usr/bin/env bash
# minio_up.sh — start a local plaintext MinIO server.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=minio_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

MINIO_MODULE=github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_IMAGE=${KATBENCH_MINIO_IMAGE:-quay.io/minio/minio:latest}

USAGE="usage: minio_up.sh [--port N]

Starts MinIO on 127.0.0.1 with a temp data dir: the Docker image
($MINIO_IMAGE) when a Docker engine answers, else the real server built once
with 'go install $MINIO_MODULE' into \$KATBENCH_CACHE/bin (about 2 minutes the
first time). Waits for /minio/health/ready, then prints:

  eval \"\$(containers/minio_up.sh)\"   # KATBENCH_S3_ENDPOINT, AWS_*

  --port N   S3 port (default 9100; 9000 collides with too much). The
             console listens on the next port up.

Environment: MINIO_ROOT_USER / MINIO_ROOT_PASSWORD (default katbench /
katbench-secret; MinIO wants 8+ characters), KATBENCH_NO_DOCKER=1 forces the
binary. Stop it with containers/minio_down.sh."
kb_usage_if_help "$USAGE" "$@"

port=$(kb_port_option 9100 "$@")
[ "$port" -lt 65535 ] || kb_die "--port must leave room for the console on port+1"
cport=$((port + 1))

user=${MINIO_ROOT_USER:-katbench}
pass=${MINIO_ROOT_PASSWORD:-katbench-secret}
[ "${#user}" -ge 3 ] || kb_die "MINIO_ROOT_USER must have at least 3 characters"
[ "${#pass}" -ge 8 ] || kb_die "MINIO_ROOT_PASSWORD must have at least 8 characters"

state=$(kb_state_dir minio)
healthy() { kb_http_ok "http://127.0.0.1:$(cat "$state/port")/minio/health/ready"; }
kb_refuse_other_port "$state" "$(kb_port_option "" "$@")"
kb_existing "$state" healthy
kb_require_free_port "$port" "MinIO S3"
kb_require_free_port "$cport" "MinIO console"
kb_undo_on_failure "$HERE/minio_down.sh"
kb_need_cmd curl "health checks"

mkdir -p "$state/data"
printf '%s\n' "$port" >"$state/port"
if kb_docker_ok; then
	kb_log "starting $MINIO_IMAGE with Docker on 127.0.0.1:$port"
	cid=$(timeout 600 docker run -d -p "127.0.0.1:$port:9000" -p "127.0.0.1:$cport:9001" \
		-e MINIO_ROOT_USER="$user" -e MINIO_ROOT_PASSWORD="$pass" \
		"$MINIO_IMAGE" server /data --console-address :9001) ||
		kb_die "docker run $MINIO_IMAGE failed"
	printf '%s\n' "$cid" >"$state/container"
else
	bin=$(kb_go_install "$MINIO_MODULE" minio)
	kb_log "starting MinIO on 127.0.0.1:$port (data $state/data, log $state/log)"
	kb_start_bg "$state" env MINIO_ROOT_USER="$user" MINIO_ROOT_PASSWORD="$pass" \
		MINIO_BROWSER=off MINIO_UPDATE=off \
		"$bin" server --quiet --address "127.0.0.1:$port" \
		--console-address "127.0.0.1:$cport" "$state/data"
fi
kb_wait_ready "$state" 120 MinIO healthy

kb_write_exports "$state" \
	"KATBENCH_S3_ENDPOINT=http://127.0.0.1:$port" \
	"AWS_ACCESS_KEY_ID=$user" \
	"AWS_SECRET_ACCESS_KEY=$pass" \
	"AWS_REGION=us-east-1"
kb_log "MinIO ready at http://127.0.0.1:$port"
kb_print_exports "$state"
