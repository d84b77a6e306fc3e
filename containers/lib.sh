# shellcheck shell=bash
# lib.sh — functions shared by every containers/NAME_up.sh and NAME_down.sh.
#
# Sourced, never run. Every function logs to stderr only: an up script's
# stdout carries nothing but `export K=V` lines, so `eval "$(X_up.sh)"` works.
#
# Layout:
#   state:  ${KATBENCH_STATE_DIR:-${XDG_RUNTIME_DIR:-/tmp}/katbench-containers}/NAME/
#           pid | container, port, exports, log, and the temp dirs up created
#   cache:  ${KATBENCH_CACHE:-$HOME/.cache/katbench}/{bin,jars,...}

# kb_state_root prints the directory that holds one state dir per system.
kb_state_root() {
	printf '%s\n' "${KATBENCH_STATE_DIR:-${XDG_RUNTIME_DIR:-/tmp}/katbench-containers}"
}

# kb_state_dir NAME prints NAME's state dir (not created).
kb_state_dir() {
	printf '%s/%s\n' "$(kb_state_root)" "$1"
}

# kb_cache_dir prints the download/build cache (not created).
kb_cache_dir() {
	printf '%s\n' "${KATBENCH_CACHE:-${HOME:-/tmp}/.cache/katbench}"
}

# kb_log MSG... writes one line to stderr, prefixed with the script's name.
kb_log() {
	printf '%s: %s\n' "${KB_NAME:-katbench}" "$*" >&2
}

# kb_die MSG... logs MSG and exits 1.
kb_die() {
	kb_log "error: $*"
	exit 1
}

# kb_need_cmd CMD WHY dies with a clear message when CMD is not on PATH.
kb_need_cmd() {
	command -v "$1" >/dev/null 2>&1 || kb_die "$1 is required ($2) but not on PATH"
}

# kb_valid_port VALUE dies unless VALUE is a TCP port number 1..65535.
kb_valid_port() {
	case "$1" in
	'' | *[!0-9]*) kb_die "invalid port '$1': want a number 1..65535" ;;
	esac
	if [ "$1" -lt 1 ] || [ "$1" -gt 65535 ]; then
		kb_die "invalid port '$1': want a number 1..65535"
	fi
}

# kb_port_option DEFAULT ARGS... parses the arguments of a script whose only
# option is --port N (or --port=N) and prints the valid port; it dies on
# anything else. Use: port=$(kb_port_option 7070 "$@"). With an empty
# DEFAULT and no --port it prints nothing: whether a port was asked for.
kb_port_option() {
	local port=$1
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--port)
			[ $# -ge 2 ] || kb_die "--port needs a value"
			port=$2
			shift 2
			;;
		--port=*)
			port=${1#--port=}
			shift
			;;
		*) kb_die "unknown argument '$1' (see --help)" ;;
		esac
	done
	[ -n "$port" ] || return 0
	kb_valid_port "$port"
	printf '%s\n' "$port"
}

# kb_port_in_use PORT succeeds when something accepts TCP connections on
# 127.0.0.1:PORT.
kb_port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# kb_require_free_port PORT WHAT dies with a clear message when PORT is taken.
kb_require_free_port() {
	if kb_port_in_use "$1"; then
		kb_die "port $1 ($2) is already in use by another process on 127.0.0.1; stop it or pass --port"
	fi
}

# kb_pid_alive PID succeeds while PID is a running (non-zombie) process.
kb_pid_alive() {
	local pid=$1 state
	[ -n "$pid" ] || return 1
	kill -0 "$pid" 2>/dev/null || return 1
	state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
	[ "$state" != "Z" ]
}

# kb_recorded_pid DIR prints the pid recorded in DIR/pid, if any.
kb_recorded_pid() {
	if [ -f "$1/pid" ]; then
		tr -dc '0-9' <"$1/pid"
	fi
}

# kb_pid_matches PID NEEDLE succeeds when PID's command line contains NEEDLE,
# so a recycled pid is never mistaken for ours.
kb_pid_matches() {
	local pid=$1 needle=$2
	[ -r "/proc/$pid/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$needle"
}

# kb_start_bg DIR CMD... starts CMD detached in its own session, stdin from
# /dev/null and output to DIR/log, and records its pid in DIR/pid. It never
# holds the caller's stdout, so `$(X_up.sh)` returns once up is done.
kb_start_bg() {
	local dir=$1
	shift
	setsid "$@" </dev/null >>"$dir/log" 2>&1 &
	printf '%s\n' "$!" >"$dir/pid"
}

# kb_log_tail DIR prints the last lines of DIR/log to stderr.
kb_log_tail() {
	if [ -f "$1/log" ]; then
		kb_log "last lines of $1/log:"
		tail -n 30 "$1/log" >&2 || true
	fi
}

# kb_wait_ready DIR SECONDS WHAT CHECK... runs CHECK every half second until it
# succeeds; dies with the log tail when the process in DIR/pid exits or
# SECONDS pass.
kb_wait_ready() {
	local dir=$1 secs=$2 what=$3 pid deadline
	shift 3
	pid=$(kb_recorded_pid "$dir")
	deadline=$((SECONDS + secs))
	while :; do
		if "$@"; then
			return 0
		fi
		if [ -n "$pid" ] && ! kb_pid_alive "$pid"; then
			kb_log_tail "$dir"
			kb_die "$what exited before it became healthy"
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			kb_log_tail "$dir"
			kb_die "$what not healthy after ${secs}s"
		fi
		sleep 0.5
	done
}

# kb_http_code URL prints the HTTP status of GET URL (000 when nothing answers).
kb_http_code() {
	curl -s -o /dev/null -m 5 -w '%{http_code}' "$1" 2>/dev/null || true
}

# kb_http_answers URL succeeds when anything speaks HTTP at URL.
kb_http_answers() {
	local code
	code=$(kb_http_code "$1")
	[ -n "$code" ] && [ "$code" != "000" ]
}

# kb_http_ok URL succeeds when GET URL answers 2xx.
kb_http_ok() {
	case "$(kb_http_code "$1")" in
	2??) return 0 ;;
	*) return 1 ;;
	esac
}

# kb_stop_pid PID [SECONDS] sends TERM to PID's process group (it leads one:
# kb_start_bg uses setsid), waits up to SECONDS (default 15), then KILLs.
kb_stop_pid() {
	local pid=$1 secs=${2:-15} deadline
	kb_pid_alive "$pid" || return 0
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	deadline=$((SECONDS + secs))
	while kb_pid_alive "$pid"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			kb_log "pid $pid still running after ${secs}s; sending KILL"
			kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
			sleep 0.5
			break
		fi
		sleep 0.2
	done
	# The whole group: a JVM or a go-built server may leave helpers behind.
	kill -KILL -- "-$pid" 2>/dev/null || true
}

# kb_print_exports DIR prints DIR/exports (the only stdout an up script makes).
kb_print_exports() {
	cat "$1/exports"
}

# kb_shell_quote V prints V single-quoted for any POSIX shell: each ' in V
# becomes '\'' (close, an escaped quote, reopen), and nothing else inside
# single quotes is special, so $(...), backquotes, spaces and newlines stay
# literal when the line is eval'd.
kb_shell_quote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# kb_write_exports DIR K=V... writes `export K='V'` lines to DIR/exports, V
# quoted by kb_shell_quote. K must be a shell name.
kb_write_exports() {
	local dir=$1 kv k
	shift
	: >"$dir/exports.tmp"
	for kv in "$@"; do
		k=${kv%%=*}
		case $k in
		'' | [0-9]* | *[!A-Za-z0-9_]*) kb_die "kb_write_exports: $k is not a variable name" ;;
		esac
		printf 'export %s=%s\n' "$k" "$(kb_shell_quote "${kv#*=}")" >>"$dir/exports.tmp"
	done
	mv "$dir/exports.tmp" "$dir/exports"
}

# kb_go_install PKG@VERSION BIN prints the path of BIN in the cache, building
# it with `GOBIN=cache/bin go install PKG@VERSION` when it is missing.
kb_go_install() {
	local pkg=$1 bin=$2 gobin
	gobin="$(kb_cache_dir)/bin"
	if [ ! -x "$gobin/$bin" ]; then
		kb_need_cmd go "to build $bin"
		mkdir -p "$gobin"
		kb_log "installing $pkg into $gobin (first run only)"
		GOBIN="$gobin" GOFLAGS=-mod=mod go install "$pkg" >&2 ||
			kb_die "go install $pkg failed"
	fi
	printf '%s\n' "$gobin/$bin"
}

# kb_mvn_jar G:A:V[:type[:classifier]] FILE prints the cached path of a jar
# from Maven Central, fetching it with `mvn dependency:copy` when missing.
kb_mvn_jar() {
	local artifact=$1 file=$2 dir
	dir="$(kb_cache_dir)/jars"
	if [ ! -s "$dir/$file" ]; then
		kb_need_cmd mvn "to fetch $artifact from Maven Central"
		mkdir -p "$dir"
		kb_log "fetching $artifact into $dir (first run only)"
		(cd "$dir" && mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$dir" >&2) ||
			kb_die "mvn could not fetch $artifact"
		[ -s "$dir/$file" ] || kb_die "mvn fetched $artifact but $dir/$file is missing"
	fi
	printf '%s\n' "$dir/$file"
}

# kb_java_home MIN [MAX] prints a JAVA_HOME whose java major version is in
# MIN..MAX (MAX default 999): $JAVA_HOME if it fits, else the oldest JDK under
# /usr/lib/jvm that does (oldest: the closest to what the server was built for).
kb_java_home() {
	local min=$1 max=${2:-999} cand v best='' bestv=1000
	for cand in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
		if [ -z "$cand" ] || [ ! -x "$cand/bin/java" ]; then continue; fi
		if [ -L "$cand" ] && [ "$cand" != "${JAVA_HOME:-}" ]; then continue; fi
		v=$(kb_java_major "$cand/bin/java")
		if [ "$v" -lt "$min" ] || [ "$v" -gt "$max" ]; then continue; fi
		if [ "$cand" = "${JAVA_HOME:-}" ]; then
			printf '%s\n' "$cand"
			return 0
		fi
		if [ "$v" -lt "$bestv" ]; then
			best=$cand
			bestv=$v
		fi
	done
	[ -n "$best" ] || return 1
	printf '%s\n' "$best"
}

# kb_java_major JAVA prints the major version of the java binary JAVA (0 if unknown).
kb_java_major() {
	local out v
	out=$("$1" -version 2>&1 | head -n 1) || true
	v=$(printf '%s\n' "$out" | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p')
	if [ "$v" = "1" ]; then
		v=$(printf '%s\n' "$out" | sed -n 's/.*version "1\.\([0-9][0-9]*\).*/\1/p')
	fi
	printf '%s\n' "${v:-0}"
}

# kb_docker_ok succeeds when a Docker engine answers.
kb_docker_ok() {
	[ "${KATBENCH_NO_DOCKER:-}" != "1" ] || return 1
	command -v docker >/dev/null 2>&1 || return 1
	timeout 10 docker info >/dev/null 2>&1
}

# kb_refuse_other_port DIR PORT stops an `up` that asked for --port PORT
# when the copy recorded in DIR runs on another port: printing that copy's
# exports would point the caller at a port it did not ask for. Call it
# before kb_existing; an empty PORT (none asked for) does nothing.
kb_refuse_other_port() {
	local dir=$1 want=$2 have pid cid
	[ -n "$want" ] && [ -f "$dir/port" ] || return 0
	have=$(cat "$dir/port")
	[ "$have" != "$want" ] || return 0
	pid=$(kb_recorded_pid "$dir")
	cid=$(cat "$dir/container" 2>/dev/null || true)
	if kb_pid_alive "$pid" || kb_container_running "$cid"; then
		kb_die "a copy recorded in $dir already runs on port $have, not the requested $want; stop it with the down script first, or give this one another KATBENCH_STATE_DIR"
	fi
}

# kb_existing DIR CHECK... handles `up` run twice: when DIR records a live
# process and CHECK succeeds, it prints the recorded exports and exits 0; when
# DIR holds a dead run's leftovers it removes them. It returns otherwise.
kb_existing() {
	local dir=$1 pid cid
	shift
	[ -d "$dir" ] || return 0
	pid=$(kb_recorded_pid "$dir")
	cid=$(cat "$dir/container" 2>/dev/null || true)
	if [ -f "$dir/exports" ] && { kb_pid_alive "$pid" || kb_container_running "$cid"; }; then
		if "$@"; then
			kb_log "already running (state in $dir); printing its exports again"
			kb_print_exports "$dir"
			exit 0
		fi
		kb_die "a copy recorded in $dir is running but not healthy; run the down script first"
	fi
	if kb_pid_alive "$pid" || kb_container_running "$cid"; then
		kb_die "a copy recorded in $dir is still starting or half-started; run the down script first"
	fi
	kb_log "removing leftovers of an earlier run in $dir"
	rm -rf -- "$dir"
}

# kb_container_running CID succeeds while Docker container CID runs.
kb_container_running() {
	[ -n "$1" ] || return 1
	command -v docker >/dev/null 2>&1 || return 1
	[ "$(timeout 10 docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null || true)" = "true" ]
}

# kb_down DIR WHAT stops what DIR records (pid or container) and removes DIR.
kb_down() {
	local dir=$1 what=$2 pid cid
	if [ ! -d "$dir" ]; then
		kb_log "$what is not running (no state in $dir); nothing to do"
		return 0
	fi
	pid=$(kb_recorded_pid "$dir")
	cid=$(cat "$dir/container" 2>/dev/null || true)
	if [ -n "$cid" ]; then
		kb_log "stopping container $cid"
		timeout 60 docker rm -f "$cid" >/dev/null 2>&1 || kb_log "docker rm -f $cid failed (already gone?)"
	fi
	if [ -n "$pid" ]; then
		if kb_pid_alive "$pid"; then
			kb_log "stopping $what (pid $pid)"
			kb_stop_pid "$pid"
		else
			kb_log "$what (pid $pid) had already exited"
		fi
	fi
	rm -rf -- "$dir"
}

# kb_undo_on_failure DOWN_SCRIPT makes a failing up script run DOWN_SCRIPT on
# exit, so a start that never became healthy leaves nothing behind. Call it
# only after kb_existing: it must never tear down a copy that was running.
kb_undo_on_failure() {
	KB_UNDO=$1
	trap 'kb__undo $?' EXIT
}

kb__undo() {
	if [ "$1" != 0 ] && [ -n "${KB_UNDO:-}" ]; then
		kb_log "start failed; undoing with $(basename "$KB_UNDO")"
		"$KB_UNDO" >&2 || true
	fi
}

# kb_usage_if_help TEXT ARGS... prints TEXT and exits 0 when ARGS hold -h/--help.
kb_usage_if_help() {
	local text=$1 a
	shift
	for a in "$@"; do
		case "$a" in
		-h | --help)
			printf '%s\n' "$text"
			exit 0
			;;
		esac
	done
}

# kb_shared_dir prints the team's shared folder beside the checkout
# (../shared relative to the repository root, CI's layout), which may not exist.
kb_shared_dir() {
	printf '%s\n' "${KATBENCH_SHARED_DIR:-$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)/../shared}"
}

# kb_lock FILE takes an exclusive lock on FILE (created) for the rest of the
# script, so two scripts never fill the same cache entry at once. It logs
# when it has to wait.
kb_lock() {
	mkdir -p "$(dirname -- "$1")"
	exec 9>"$1"
	if ! flock -n 9; then
		kb_log "waiting for another run that holds $1"
		flock 9
	fi
}

# kb_install_only ARGS... succeeds when ARGS hold --install-only: the script
# then fills its cache and exits without starting anything (make setup).
kb_install_only() {
	local a
	for a in "$@"; do
		[ "$a" != --install-only ] || return 0
	done
	return 1
}

# --- PostgreSQL (postgres_up.sh) and the catalogs that store in it ---

# KB_PG_DATABASES are the databases postgres_up.sh creates, one per catalog
# that stores in PostgreSQL; each has a login role of the same name.
# shellcheck disable=SC2034 # used by the scripts that source this file
KB_PG_DATABASES="nessie polaris fixture sqlcat"

# kb_pg_bin prints the bin dir of this machine's PostgreSQL: KATBENCH_PG_BIN,
# else the newest /usr/lib/postgresql/VER/bin, else the dir of initdb on PATH.
# It fails when none holds initdb, postgres and pg_isready.
kb_pg_bin() {
	local cand best='' bestv=0 v
	if [ -n "${KATBENCH_PG_BIN:-}" ]; then
		[ -x "$KATBENCH_PG_BIN/initdb" ] && [ -x "$KATBENCH_PG_BIN/postgres" ] || return 1
		printf '%s\n' "$KATBENCH_PG_BIN"
		return 0
	fi
	for cand in /usr/lib/postgresql/*/bin; do
		if [ ! -x "$cand/initdb" ] || [ ! -x "$cand/postgres" ] || [ ! -x "$cand/pg_isready" ]; then continue; fi
		v=$(basename -- "$(dirname -- "$cand")" | tr -dc '0-9')
		if [ "${v:-0}" -gt "$bestv" ]; then
			best=$cand
			bestv=$v
		fi
	done
	if [ -z "$best" ] && command -v initdb >/dev/null 2>&1; then
		cand=$(dirname -- "$(readlink -f -- "$(command -v initdb)")")
		[ -x "$cand/postgres" ] && [ -x "$cand/pg_isready" ] && best=$cand
	fi
	[ -n "$best" ] || return 1
	printf '%s\n' "$best"
}

# kb_pg_running succeeds when postgres_up.sh's cluster is recorded and answers.
kb_pg_running() {
	local st bin
	st=$(kb_state_dir postgres)
	[ -f "$st/exports" ] && kb_pid_alive "$(kb_recorded_pid "$st")" || return 1
	bin=$(kb_pg_bin) || return 1
	"$bin/pg_isready" -q -h 127.0.0.1 -p "$(cat "$st/port")" -t 2
}

# kb_pg_psql DB [PSQL_ARGS...] runs psql on database DB of postgres_up.sh's
# cluster as its superuser, through the cluster's Unix socket, with SQL from
# stdin; it stops at the first error.
kb_pg_psql() {
	local db=$1 st bin osuser runas=()
	shift
	st=$(kb_state_dir postgres)
	bin=$(kb_pg_bin) || kb_die "no PostgreSQL found: run containers/postgres_up.sh --install-only"
	osuser=$(cat "$st/osuser")
	if [ "$(id -u)" = 0 ] && [ "$osuser" != root ]; then
		runas=(setpriv "--reuid=$osuser" "--regid=$(id -g "$osuser")" --init-groups --)
	fi
	"${runas[@]}" "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$st/run" -p "$(cat "$st/port")" -U katbench -d "$db" "$@"
}

# kb_pg_ensure DIR prints the exports of postgres_up.sh's cluster, starting
# one (on KATBENCH_PG_PORT, default 15432) when none runs. A catalog's down
# script never stops the cluster (other catalogs may store in it); it resets
# its own database (kb_pg_reset_db). DIR/started-postgres records that this
# start was ours, for the log.
kb_pg_ensure() {
	local dir=$1
	if kb_pg_running; then
		kb_log "reusing the running PostgreSQL in $(kb_state_dir postgres)"
	else
		touch "$dir/started-postgres"
	fi
	"$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/postgres_up.sh" --port "${KATBENCH_PG_PORT:-15432}"
}

# kb_pg_reset_db DB drops database DB of the running cluster with everything
# in it and creates it empty again (same owner), so the next start of the
# catalog that stores there begins empty. No cluster running: nothing to do.
kb_pg_reset_db() {
	local db=$1
	if ! kb_pg_running; then
		kb_log "PostgreSQL is not running; database $db has nothing to reset"
		return 0
	fi
	kb_pg_psql postgres <<<"DROP DATABASE IF EXISTS $db WITH (FORCE);
CREATE DATABASE $db OWNER $db;" >&2 || kb_die "resetting database $db failed"
	kb_log "reset database $db (emptied for the next start)"
}

# kb_undo_with CMD... is kb_undo_on_failure for a down command with
# arguments (nessie_down.sh --store jdbc --keep-store): a failing up script
# runs CMD on exit. Call it only after kb_existing.
kb_undo_with() {
	KB_UNDO_CMD=("$@")
	trap 'kb__undo_with $?' EXIT
}

kb__undo_with() {
	if [ "$1" != 0 ] && [ "${#KB_UNDO_CMD[@]}" -gt 0 ]; then
		kb_log "start failed; undoing with $(basename "${KB_UNDO_CMD[0]}") ${KB_UNDO_CMD[*]:1}"
		"${KB_UNDO_CMD[@]}" >&2 || true
	fi
}

# kb_store_option ARGS... prints the value of --store S (or --store=S) in
# ARGS, "" when absent; the other arguments are not looked at.
kb_store_option() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--store)
			[ $# -ge 2 ] || kb_die "--store needs a value"
			printf '%s\n' "$2"
			return 0
			;;
		--store=*)
			printf '%s\n' "${1#--store=}"
			return 0
			;;
		esac
		shift
	done
}

# kb_down_args DEFAULT ARGS... reads the arguments every NAME_down.sh with
# store variants takes: --store S (KB_STORE, DEFAULT when absent) and
# --keep-store (KB_KEEP=1: leave the durable store as it is). Anything else
# is a usage error.
# shellcheck disable=SC2034 # KB_STORE and KB_KEEP are read by the caller
kb_down_args() {
	KB_STORE=$1
	KB_KEEP=0
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--store)
			[ $# -ge 2 ] || kb_die "--store needs a value"
			KB_STORE=$2
			shift 2
			;;
		--store=*) KB_STORE=${1#*=} && shift ;;
		--keep-store) KB_KEEP=1 && shift ;;
		*) kb_die "unknown argument '$1' (see --help)" ;;
		esac
	done
}
