#!/usr/bin/env bash
# check.sh — shellcheck every script in containers/ (make test runs this).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)

install_only=0
case "${1:-}" in
-h | --help)
	printf 'usage: check.sh [--install-only]\n\nRuns shellcheck (Debian package shellcheck) on containers/*.sh with\ncontainers/.shellcheckrc. Installs shellcheck system-wide with apt-get when missing and run as\nroot; exits non-zero on any finding or when shellcheck cannot be had.\n\n  --install-only    install shellcheck when missing, check nothing (make setup)\n'
	exit 0
	;;
--install-only) install_only=1 ;;
"") ;;
*)
	echo "check.sh: unknown argument '$1' (see --help)" >&2
	exit 1
	;;
esac
if ! command -v shellcheck >/dev/null 2>&1; then
	# A fresh machine (CI) has no shellcheck; install it from Debian when we can.
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "check.sh: installing shellcheck from Debian" >&2
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck) >&2 || true
	fi
	command -v shellcheck >/dev/null 2>&1 || {
		echo "check.sh: shellcheck is not installed (apt-get install -y shellcheck)" >&2
		exit 1
	}
fi
if [ "$install_only" = 1 ]; then
	echo "check.sh: shellcheck ready: $(command -v shellcheck)" >&2
	exit 0
fi
cd "$HERE"
shellcheck -x ./*.sh k8s/*.sh
echo "check.sh: shellcheck clean: $(find . -maxdepth 2 -name '*.sh' | wc -l) scripts" >&2
