#!/usr/bin/env bash
# cluster_down.sh — remove the test cluster cluster_up.sh made: its pods and
# their network namespaces, the kubelet, containerd and its shims, the
# control plane and etcd, every mount under its state dir, the cgroups the
# kubelet made, its network namespace (with the bridge, the node's address
# and any iptables rule in it), the kernel settings the kubelet changed (put
# back), and the state dir. Safe to run twice; exits 0 when nothing is up.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=cluster_down
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

kb_usage_if_help "usage: cluster_down.sh

Removes the cluster recorded in \$KATBENCH_STATE_DIR/k8s-cluster (pods,
kubelet, containerd, control plane, etcd, mounts, cgroups, the network
namespace) and that state dir. The cached Kubernetes binaries stay." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"

state=$(kb_state_dir k8s-cluster)
if [ ! -d "$state" ]; then
	kb_log "no cluster (no state in $state); nothing to do"
	exit 0
fi
[ "$(id -u)" = 0 ] || kb_die "needs root"
state=$(cd "$state" && pwd)
kb_lock "$state/.lock"
netns=$(cat "$state/netns" 2>/dev/null || true)
netns=${netns:-${KATBENCH_K8S_NETNS:-katbench-k8s}}
bin=$("$HERE/build.sh" --print-dir)

stop() { # NAME: the daemon recorded in state/NAME, if it is ours
	local pid
	pid=$(kb_recorded_pid "$state/$1")
	if [ -n "$pid" ] && kb_pid_alive "$pid" && kb_pid_matches "$pid" "$state"; then
		kb_log "stopping $1 (pid $pid)"
		kb_stop_pid "$pid" 20
	fi
}

# The pods first, through the API while it answers: the kubelet then stops
# their sandboxes and containerd removes their network namespaces.
if [ -e "/run/netns/$netns" ] && [ -x "$bin/kubectl" ] && [ -s "$state/admin.kubeconfig" ] &&
	kb_pid_alive "$(kb_recorded_pid "$state/kubelet")"; then
	kb_log "deleting every pod"
	nsenter --net="/run/netns/$netns" -- "$bin/kubectl" --kubeconfig "$state/admin.kubeconfig" --request-timeout=10s \
		delete jobs,deployments,pods --all --all-namespaces --grace-period=1 --wait=true --timeout=60s >/dev/null 2>&1 ||
		kb_log "deleting the pods did not finish; killing what is left"
fi

stop kubelet
# Whatever still runs in the kubelet's cgroups is a pod's process: note the
# network namespaces the pods hold, then kill them.
cgroot=/katbench-$netns
pod_nets=""
for ctl in /sys/fs/cgroup/*/; do
	[ -d "$ctl${cgroot#/}" ] || continue
	while read -r pid; do
		[ -n "$pid" ] || continue
		pod_nets+=" $(readlink "/proc/$pid/ns/net" 2>/dev/null || true)"
		kill -KILL "$pid" 2>/dev/null || true
	done < <(find "$ctl${cgroot#/}" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u)
done

stop containerd
# containerd's shims outlive it (they run in sessions of their own).
for p in /proc/[0-9]*; do
	pid=${p#/proc/}
	case $(tr '\0' ' ' 2>/dev/null <"$p/cmdline" || true) in
	*containerd-shim*"$state/containerd.sock"*)
		kb_log "stopping containerd shim $pid"
		kill -KILL "$pid" 2>/dev/null || true
		;;
	esac
done
stop kube-scheduler
stop kube-controller-manager
stop kube-apiserver
stop etcd

# The pods' network namespaces that containerd did not remove.
for f in /run/netns/cni-*; do
	[ -e "$f" ] || continue
	id="net:[$(stat -L -c %i "$f" 2>/dev/null || echo none)]"
	case " $pod_nets " in *" $id "*)
		umount "$f" 2>/dev/null || true
		rm -f -- "$f"
		;;
	esac
done

# Mounts under the state dir (overlay roots, shm, the kubelet's volumes),
# deepest first.
awk -v s="$state/" 'index($5, s) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
	umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || kb_log "could not unmount $m"
done

# The cgroups the kubelet made, deepest first.
for ctl in /sys/fs/cgroup/*/; do
	[ -d "$ctl${cgroot#/}" ] || continue
	find "$ctl${cgroot#/}" -depth -type d -exec rmdir {} \; 2>/dev/null || true
	[ ! -d "$ctl${cgroot#/}" ] || kb_log "could not remove the cgroup $ctl${cgroot#/}"
done

if [ -e "/run/netns/$netns" ]; then
	kb_log "removing network namespace $netns"
	ip netns del "$netns"
fi

if [ -f "$state/sysctl.saved" ]; then
	while read -r k v; do
		if [ -w "/proc/sys/$k" ]; then printf '%s\n' "$v" >"/proc/sys/$k" 2>/dev/null || true; fi
	done <"$state/sysctl.saved"
fi
rm -rf -- "$state"
kb_log "cluster removed"
