#!/usr/bin/env bash
# build.sh — build the Kubernetes v1.34.4 components a single-node test
# cluster needs (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubelet, kube-proxy, kubectl) from the Go module k8s.io/kubernetes, and
# install the Debian packages beside them (etcd-server, containerd, runc,
# containernetworking-plugins, iptables, conntrack) when missing.
#
# The Go build runs in containers/k8s/build, a module of its own that pins
# k8s.io/kubernetes v1.34.4 and replaces its 31 staging modules with their
# published v0.34.4 versions, so the katbench module never depends on
# Kubernetes. Binaries go to ${KATBENCH_CACHE:-~/.cache/katbench}/k8s-1.34.4/bin,
# built under a lock into a temp dir that appears by rename: an interrupted
# build leaves nothing half-made, and a second call finds the cache and
# returns at once. Cold: about 5 min on an idle 2-core machine, 30 min on a
# busy one; the six binaries take ~700 MB.
#
# Prints the bin dir on stdout. Usage: build.sh [--print-dir]
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

version=1.34.4
components=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
dir="$(kb_cache_dir)/k8s-$version"
bin="$dir/bin"

case "${1:-}" in
-h | --help)
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
--print-dir)
	printf '%s\n' "$bin"
	exit 0
	;;
"") ;;
*)
	echo "build.sh: unknown argument '$1' (see --help)" >&2
	exit 2
	;;
esac

have_all() {
	local c
	for c in "${components[@]}"; do [ -x "$bin/$c" ] || return 1; done
}

packages() {
	local missing=() p
	for p in etcd-server containerd runc containernetworking-plugins iptables conntrack; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || kb_die "missing Debian packages ${missing[*]}: install them as root (apt-get install ${missing[*]})"
	kb_log "installing ${missing[*]} (apt)"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

packages
if ! have_all; then
	mkdir -p "$dir"
	kb_lock "$dir/.lock"
	if ! have_all; then
		tmp=$(mktemp -d "$dir/bin.tmp.XXXXXX")
		trap 'rm -rf -- "$tmp"' EXIT
		kb_log "building Kubernetes v$version (${components[*]}) into $bin; minutes on a small machine"
		pkgs=()
		for c in "${components[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
		# Stamp the version the components report to each other (the kubelet
		# registers its node with it); an unstamped build says v0.0.0-master.
		ldflags=""
		for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
			ldflags+=" -X $v.gitVersion=v$version -X $v.gitMajor=${version%%.*}"
			ldflags+=" -X $v.gitMinor=$(echo "$version" | cut -d. -f2) -X $v.gitTreeState=clean"
		done
		(cd "$HERE/build" && go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${pkgs[@]}") >&2
		rm -rf -- "$bin"
		mv -- "$tmp" "$bin"
		trap - EXIT
	fi
fi
printf '%s\n' "$bin"
