#!/usr/bin/env bash
# cluster_up.sh — a real single-node Kubernetes v1.34 cluster on this machine,
# with no registry and no internet, for `katbench cluster run` and
# `make test-k8s`.
#
# Everything runs inside a network namespace of its own (KATBENCH_K8S_NETNS,
# default katbench-k8s): etcd (Debian) on its loopback; kube-apiserver,
# kube-controller-manager and kube-scheduler (containers/k8s/build.sh) with
# certificates made here by openssl; containerd (Debian) with the cgroupfs
# driver and runc; the kubelet; and the pods, which get addresses from the
# CNI bridge plugin on a bridge in the namespace. The node's address
# (KATBENCH_K8S_NODE_IP, default 10.203.0.1) sits on an interface in
# the namespace: nothing leaves it. No image is pulled: the pod sandbox
# ("pause") image is built here from containers/k8s/pause, katbench's image
# from ./cmd/katbench (as `make image`), and both are imported with
# `ctr -n k8s.io images import`.
#
# State (certificates, etcd data, containerd's root, the kubelet's root, logs)
# lives in $KATBENCH_STATE_DIR/k8s-cluster. A second call with the cluster up
# prints the same exports and changes nothing. On stdout only:
#   export KUBECONFIG=… KATBENCH_KUBECTL=… KATBENCH_K8S_NETNS=… KATBENCH_K8S_NODE_IP=… KATBENCH_K8S_IMAGE=…
# KATBENCH_KUBECTL is a wrapper that runs the cached kubectl inside the
# namespace. cluster_down.sh removes all of it. Needs root.
#
# Usage: eval "$(containers/k8s/cluster_up.sh)"
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$HERE/../.." && pwd)
KB_NAME=cluster_up
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

kb_usage_if_help "usage: cluster_up.sh

Brings up a single-node Kubernetes v1.34.4 cluster inside the network
namespace \$KATBENCH_K8S_NETNS (default katbench-k8s) and prints the exports
that reach it (KUBECONFIG, KATBENCH_KUBECTL, KATBENCH_K8S_IMAGE, ...). State
under \$KATBENCH_STATE_DIR/k8s-cluster; idempotent; cluster_down.sh removes
everything. Needs root, and the binaries of containers/k8s/build.sh." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"

netns=${KATBENCH_K8S_NETNS:-katbench-k8s}
node_ip=${KATBENCH_K8S_NODE_IP:-10.203.0.1}
pod_cidr=${KATBENCH_K8S_POD_CIDR:-10.204.0.0/24}
svc_cidr=${KATBENCH_K8S_SERVICE_CIDR:-10.205.0.0/24}
image=${KATBENCH_K8S_IMAGE:-katbench:dev}
pause_image=docker.io/katbench/pause:1
node=kb-node
case $netns in '' | *[!A-Za-z0-9_.-]*) kb_die "KATBENCH_K8S_NETNS='$netns': want letters, digits, '.', '_' or '-'" ;; esac
case $node_ip in *[!0-9.]* | '') kb_die "KATBENCH_K8S_NODE_IP='$node_ip': want an IPv4 address" ;; esac

[ "$(id -u)" = 0 ] || kb_die "needs root (network namespace, containerd, kubelet)"
for c in ip nsenter openssl etcd containerd ctr runc; do
	kb_need_cmd "$c" "for the test cluster (containers/k8s/build.sh installs the Debian packages)"
done
[ -x /usr/lib/cni/bridge ] || kb_die "the CNI plugins are missing from /usr/lib/cni (apt-get install containernetworking-plugins)"
bin=$("$HERE/build.sh" --print-dir)
for c in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do
	[ -x "$bin/$c" ] || kb_die "$bin/$c is missing: run containers/k8s/build.sh first (it builds Kubernetes v1.34.4, minutes)"
done
{ [ -d /sys/fs/cgroup/cpu ] && [ -d /sys/fs/cgroup/memory ]; } ||
	kb_die "this script drives the kubelet with the cgroupfs driver on cgroup v1 (/sys/fs/cgroup/{cpu,memory}); not found here"

state=$(kb_state_dir k8s-cluster)
mkdir -p "$state"
state=$(cd "$state" && pwd)
kb_lock "$state/.lock"
# A start that fails part way says how to remove what it started (the
# daemons keep running so that their logs can be read).
up_failed() {
	[ "$1" = 0 ] || kb_log "cluster_up failed; logs in $state/*/log; containers/k8s/cluster_down.sh removes what was started"
}
trap 'up_failed $?' EXIT
in_ns() { nsenter --net="/run/netns/$netns" -- "$@"; }
export KUBECONFIG="$state/admin.kubeconfig"
kc() { in_ns "$bin/kubectl" --kubeconfig "$KUBECONFIG" --request-timeout=10s "$@"; }

# One daemon: its own dir with pid and log, started in the namespace.
# A recorded daemon that still runs is kept (idempotent).
daemon() {
	local name=$1 dir="$state/$1" pid
	shift
	mkdir -p "$dir"
	pid=$(kb_recorded_pid "$dir")
	if [ -n "$pid" ] && kb_pid_alive "$pid" && kb_pid_matches "$pid" "$state"; then
		return 0
	fi
	kb_log "starting $name"
	# Not holding this script's lock (fd 9) for the daemon's lifetime.
	(
		exec 9>&-
		kb_start_bg "$dir" nsenter --net="/run/netns/$netns" -- "$@"
	)
}

# --- the network namespace and the node's address ---------------------------
if [ ! -e "/run/netns/$netns" ]; then
	kb_log "creating network namespace $netns (node address $node_ip)"
	ip netns add "$netns"
fi
printf '%s\n' "$netns" >"$state/netns"
in_ns ip link set lo up
# A veth pair with both ends inside (the dummy driver is not on every kernel).
if ! in_ns ip link show kbnode >/dev/null 2>&1; then
	in_ns ip link add kbnode type veth peer name kbnode-peer
fi
in_ns ip link set kbnode-peer up
in_ns ip link set kbnode up
in_ns ip -4 addr show dev kbnode | grep -qF " $node_ip/" || in_ns ip addr add "$node_ip/24" dev kbnode
in_ns ip route show default | grep -q . || in_ns ip route add default dev kbnode

# --- certificates -------------------------------------------------------------
pki="$state/pki"
mkdir -p "$pki"
cert() { # NAME CN O EXT: a key and a certificate signed by the cluster's CA
	local name=$1 cn=$2 o=$3 ext=$4 subj
	[ -s "$pki/$name.crt" ] && return 0
	subj="/CN=$cn"
	[ -z "$o" ] || subj="/O=$o$subj"
	openssl genrsa -out "$pki/$name.key" 2048 2>/dev/null
	openssl req -new -key "$pki/$name.key" -subj "$subj" -out "$pki/$name.csr" 2>/dev/null
	printf '%s\n' "$ext" >"$pki/$name.ext"
	openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
		-days 30 -sha256 -extfile "$pki/$name.ext" -out "$pki/$name.crt.tmp" 2>/dev/null
	mv "$pki/$name.crt.tmp" "$pki/$name.crt"
}
if [ ! -s "$pki/ca.crt" ]; then
	kb_log "generating the cluster's certificates (openssl)"
	openssl genrsa -out "$pki/ca.key" 2048 2>/dev/null
	openssl req -x509 -new -key "$pki/ca.key" -subj "/CN=katbench-test-cluster-ca" -days 30 -sha256 \
		-out "$pki/ca.crt.tmp" 2>/dev/null
	mv "$pki/ca.crt.tmp" "$pki/ca.crt"
fi
svc_ip=$(echo "$svc_cidr" | awk -F'[./]' '{printf "%d.%d.%d.%d", $1, $2, $3, $4 + 1}')
client='extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature,keyEncipherment'
cert apiserver kube-apiserver "" "extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment
subjectAltName=IP:$node_ip,IP:127.0.0.1,IP:$svc_ip,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost"
cert kubelet-serving "system:node:$node" system:nodes "extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment
subjectAltName=IP:$node_ip,DNS:$node"
cert admin katbench-admin system:masters "$client"
cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters "$client"
cert node "system:node:$node" system:nodes "$client"
cert controller-manager system:kube-controller-manager "" "$client"
cert scheduler system:kube-scheduler "" "$client"
if [ ! -s "$pki/sa.pub" ]; then
	openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
	openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
fi
chmod 600 "$pki"/*.key
kubeconfig() { # FILE CERTNAME
	cat >"$1.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: katbench
  cluster:
    server: https://$node_ip:6443
    certificate-authority: $pki/ca.crt
users:
- name: $2
  user:
    client-certificate: $pki/$2.crt
    client-key: $pki/$2.key
contexts:
- name: katbench
  context: {cluster: katbench, user: $2}
current-context: katbench
EOF
	mv "$1.tmp" "$1"
}
kubeconfig "$state/admin.kubeconfig" admin
kubeconfig "$state/node.kubeconfig" node
kubeconfig "$state/controller-manager.kubeconfig" controller-manager
kubeconfig "$state/scheduler.kubeconfig" scheduler

# --- etcd and the control plane -----------------------------------------------
daemon etcd etcd --name kb --data-dir "$state/etcd/data" \
	--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
	--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
	--initial-cluster kb=http://127.0.0.1:2380 --listen-metrics-urls ""
kb_wait_ready "$state/etcd" 60 etcd in_ns curl -fsS -m 2 -o /dev/null http://127.0.0.1:2379/health

daemon kube-apiserver "$bin/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
	--advertise-address="$node_ip" --bind-address=0.0.0.0 --secure-port=6443 \
	--service-cluster-ip-range="$svc_cidr" \
	--tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
	--client-ca-file="$pki/ca.crt" \
	--kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
	--kubelet-certificate-authority="$pki/ca.crt" --kubelet-preferred-address-types=InternalIP \
	--service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$pki/sa.pub" \
	--service-account-signing-key-file="$pki/sa.key" \
	--authorization-mode=Node,RBAC --allow-privileged=false --profiling=false \
	--cert-dir="$state/kube-apiserver"
api_ready() { kc get --raw /readyz >/dev/null 2>&1; }
kb_wait_ready "$state/kube-apiserver" 180 kube-apiserver api_ready

daemon kube-controller-manager "$bin/kube-controller-manager" \
	--kubeconfig="$state/controller-manager.kubeconfig" \
	--authentication-kubeconfig="$state/controller-manager.kubeconfig" \
	--authorization-kubeconfig="$state/controller-manager.kubeconfig" \
	--service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
	--use-service-account-credentials=true --leader-elect=false \
	--bind-address=127.0.0.1 --secure-port=10257 --cert-dir="$state/kube-controller-manager" --profiling=false
daemon kube-scheduler "$bin/kube-scheduler" --kubeconfig="$state/scheduler.kubeconfig" \
	--authentication-kubeconfig="$state/scheduler.kubeconfig" \
	--authorization-kubeconfig="$state/scheduler.kubeconfig" \
	--leader-elect=false --bind-address=127.0.0.1 --secure-port=10259 --profiling=false

# --- containerd, the images, CNI ----------------------------------------------
mkdir -p "$state/cni/net.d" "$state/containerd"
cat >"$state/cni/net.d/10-katbench.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "katbench",
  "plugins": [
    {
      "type": "bridge", "bridge": "kbbr0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {"type": "host-local", "ranges": [[{"subnet": "$pod_cidr"}]], "routes": [{"dst": "0.0.0.0/0"}],
               "dataDir": "$state/cni/ipam"}
    }
  ]
}
EOF
cat >"$state/containerd/config.toml" <<EOF
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$state/containerd.sock"
[ttrpc]
  address = "$state/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$state/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  restrict_oom_score_adj = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state/cni/net.d"
EOF
daemon containerd containerd --config "$state/containerd/config.toml"
ctrk() { ctr -a "$state/containerd.sock" -n k8s.io "$@"; }
ctr_ready() { ctrk version >/dev/null 2>&1; }
kb_wait_ready "$state/containerd" 60 containerd ctr_ready

# The images: built from this checkout (go build; -buildvcs=auto, so result
# lines record the commit even where GOFLAGS turns stamping off), imported unless the same
# digest is there already.
images="$state/images"
mkdir -p "$images"
build_image() { # NAME PKG TAR [ociimage flags...]
	local name=$1 pkg=$2 tar=$3
	shift 3
	(cd "$REPO" && CGO_ENABLED=0 go build -trimpath -buildvcs=auto -o "$images/$name.bin" "$pkg") ||
		kb_die "go build $pkg failed"
	(cd "$REPO" && go run ./containers/k8s/ociimage -binary "$images/$name.bin" -o "$tar" "$@") ||
		kb_die "writing the $name image failed"
}
kb_log "building the pause and katbench images from this checkout"
build_image pause ./containers/k8s/pause "$images/pause.tar" -pause -name "${pause_image#docker.io/}"
build_image katbench ./cmd/katbench "$images/katbench.tar" -name "$image"
for t in pause katbench; do
	ctrk images import "$images/$t.tar" >"$images/$t.import.log" 2>&1 ||
		{ cat "$images/$t.import.log" >&2; kb_die "ctr images import $images/$t.tar failed"; }
done
rm -f "$images"/*.bin

# --- the kubelet ----------------------------------------------------------------
# Kernel settings the kubelet changes when it starts: recorded once, put back
# by cluster_down.sh.
if [ ! -f "$state/sysctl.saved" ]; then
	for k in vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes; do
		[ -r "/proc/sys/$k" ] && printf '%s %s\n' "$k" "$(cat "/proc/sys/$k")"
	done >"$state/sysctl.saved"
fi
# The kubelet's cgroup root (cgroupfs driver), one per cluster so that two
# clusters on one machine never share pods' cgroups.
for ctl in /sys/fs/cgroup/*/; do
	[ -f "${ctl}cgroup.procs" ] || continue
	mkdir -p "${ctl}katbench-$netns"
	if [ -f "${ctl}cpuset.cpus" ]; then
		cat "${ctl}cpuset.cpus" >"${ctl}katbench-$netns/cpuset.cpus"
		cat "${ctl}cpuset.mems" >"${ctl}katbench-$netns/cpuset.mems"
	fi
done
mkdir -p "$state/kubelet/root"
printf 'nameserver 127.0.0.1\n' >"$state/kubelet/resolv.conf"
cat >"$state/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $node_ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $pki/kubelet-serving.crt
tlsPrivateKeyFile: $pki/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$state/containerd.sock
cgroupDriver: cgroupfs
cgroupRoot: /katbench-$netns
failCgroupV1: false
failSwapOn: false
resolvConf: $state/kubelet/resolv.conf
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
serializeImagePulls: false
EOF
daemon kubelet "$bin/kubelet" --config="$state/kubelet/config.yaml" \
	--kubeconfig="$state/node.kubeconfig" --root-dir="$state/kubelet/root" \
	--node-ip="$node_ip" --hostname-override="$node" --cert-dir="$state/kubelet/pki"

node_ready() {
	[ "$(kc get node "$node" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}
kb_wait_ready "$state/kubelet" 180 "the kubelet (node $node Ready)" node_ready
sa_ready() { kc -n default get serviceaccount default >/dev/null 2>&1; }
kb_wait_ready "$state/kube-controller-manager" 120 "kube-controller-manager (the default service account)" sa_ready

# KATBENCH_KUBECTL: the cached kubectl, run in the namespace with this
# cluster's kubeconfig, for `katbench cluster run --kubectl`.
cat >"$state/kubectl.tmp" <<EOF
#!/bin/sh
exec nsenter --net=/run/netns/$netns -- "$bin/kubectl" --kubeconfig "$state/admin.kubeconfig" "\$@"
EOF
chmod 755 "$state/kubectl.tmp"
mv "$state/kubectl.tmp" "$state/kubectl"
kb_write_exports "$state" KUBECONFIG="$state/admin.kubeconfig" KATBENCH_KUBECTL="$state/kubectl" \
	KATBENCH_K8S_NETNS="$netns" KATBENCH_K8S_NODE_IP="$node_ip" KATBENCH_K8S_IMAGE="$image"
kb_log "cluster up: node $node Ready at $node_ip in network namespace $netns"
kb_print_exports "$state"
