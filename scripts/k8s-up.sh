#!/usr/bin/env bash
# Starts a single-node Kubernetes on this machine for test/k8s, all on
# 127.0.0.1: etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# and a kubelet on a containerd of its own (own root, state and socket; no
# CNI: pods use hostNetwork). Runs as root on a fresh Debian machine:
# installs containerd, runc and etcd from Debian's packages, builds the
# Kubernetes commands from the Go module proxy (k8s.io/kubernetes, its
# staging modules pinned to the same version) once into the cache
# directory, and builds the pod sandbox ("pause") image locally: no image
# registry is used. Prints the kubeconfig path; scripts/k8s-down.sh stops
# everything and removes its state.
#
# The kubelet keeps to its own cgroup root (/rightsize-k8s, cgroupfs) and
# its own containerd, so it neither sees nor evicts other processes; the
# kernel settings it changes at start are saved here and restored by
# k8s-down.sh. Settings: scripts/k8s-lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
. "$here/k8s-lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "k8s-up: run as root (it starts containerd and a kubelet)" >&2; exit 2; }
start=$SECONDS

install_debs() {
  local need=() p
  for p in containerd runc etcd-server openssl curl jq; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
  [ ${#need[@]} -eq 0 ] && return
  k8s_log "installing ${need[*]}"
  local made=""
  # keep the packages' scripts from starting the system-wide services
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  [ -z "$made" ] || rm -f /usr/sbin/policy-rc.d
}

# build_kubernetes builds the five commands into $K8S_CACHE/bin from a
# scratch module that requires k8s.io/kubernetes and replaces each of its
# staging modules (k8s.io/api, ...) with the release of the same version.
build_kubernetes() {
  [ -x "$K8S_CACHE/bin/kubelet" ] && return
  k8s_log "building Kubernetes v$K8S_VERSION from the Go module proxy into $K8S_CACHE (once)"
  local b=$K8S_CACHE/build t0=$SECONDS
  rm -rf "$b" && mkdir -p "$b" && cd "$b"
  local mod
  mod=$(GOFLAGS= go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | jq -r .GoMod)
  {
    printf 'module rightsize.local/k8sbuild\n\ngo 1.26\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "$K8S_VERSION"
    sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\t\1 => \1 v0.'"${K8S_VERSION#1.}"'#p' "$mod"
    printf ')\n'
  } >go.mod
  export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
  go get "k8s.io/kubernetes@v$K8S_VERSION"
  local v=k8s.io/component-base/version
  go build -trimpath -ldflags "-s -w -X $v.gitVersion=v$K8S_VERSION -X $v.gitMajor=${K8S_VERSION%%.*} -X $v.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)" \
    -o "$b/out/" k8s.io/kubernetes/cmd/{kube-apiserver,kube-controller-manager,kube-scheduler,kubelet,kubectl}
  rm -rf "$K8S_CACHE/bin" && mv "$b/out" "$K8S_CACHE/bin" && cd / && rm -rf "$b"
  k8s_log "built in $((SECONDS - t0)) s"
}

# build_pause makes the sandbox image: test/k8s/pause, a static binary that
# waits for a signal, alone in an OCI image.
build_pause() {
  [ -f "$K8S_CACHE/pause.tar" ] && return
  local d
  d=$(mktemp -d)
  (cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$d/pause" ./test/k8s/pause &&
    go run ./internal/ociimage/mkimage -o "$d/pause.tar" -name "$K8S_PAUSE_IMAGE" -user 65535:65535 \
      -entrypoint /pause -add "$d/pause:/pause:0755")
  mv "$d/pause.tar" "$K8S_CACHE/pause.tar" && rm -rf "$d"
}

certs() {
  local c=$K8S_STATE/pki
  mkdir -p "$c" && chmod 700 "$c" && cd "$c"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj "/CN=rightsize-k8s-ca" 2>/dev/null
  # name, subject, extensions
  leaf() {
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf '%s\n' "$3" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 2 -extfile "$1.ext" 2>/dev/null
  }
  local san="subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,IP:10.96.0.1"
  leaf server "/CN=rightsize-k8s" "$san"$'\n'"extendedKeyUsage=serverAuth,clientAuth"
  # one client identity for the components and the tests: a loopback-only
  # test cluster whose every user is root on this machine anyway
  leaf admin "/O=system:masters/CN=rightsize-k8s-admin" "extendedKeyUsage=clientAuth"
  openssl genrsa -out sa.key 2048 2>/dev/null && openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  chmod 600 ./*.key
  cat >"$KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: rightsize-k8s
  cluster: {server: "https://127.0.0.1:$K8S_PORT_API", certificate-authority: "$c/ca.crt"}
users:
- name: admin
  user: {client-certificate: "$c/admin.crt", client-key: "$c/admin.key"}
contexts:
- name: rightsize-k8s
  context: {cluster: rightsize-k8s, user: admin, namespace: default}
current-context: rightsize-k8s
EOF
  chmod 600 "$KUBECONFIG"
}

# daemon NAME CMD...: starts CMD in its own session, its output in
# $K8S_STATE/log/NAME.log, its pid in $K8S_STATE/run/NAME.pid.
daemon() {
  local name=$1
  shift
  setsid "$@" >"$K8S_STATE/log/$name.log" 2>&1 </dev/null &
  echo $! >"$K8S_STATE/run/$name.pid"
}

# wait_for WHAT SECONDS CMD...: polls CMD until it succeeds.
wait_for() {
  local what=$1 limit=$2
  shift 2
  local i
  for ((i = 0; i < limit * 2; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  k8s_log "$what not up after ${limit}s; logs in $K8S_STATE/log"
  return 1
}

containerd_config() {
  local d=$K8S_STATE/containerd
  mkdir -p "$d" "$K8S_STATE/cni/net.d" "$K8S_STATE/cni/bin"
  cat >"$d/config.toml" <<EOF
version = 2
root = "$d/root"
state = "$d/state"
plugin_dir = ""
disabled_plugins = ["io.containerd.grpc.v1.introspection-remote", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$K8S_SOCK"
[ttrpc]
  address = "$K8S_SOCK.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$d/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$K8S_PAUSE_IMAGE"
  disable_tcp_service = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  # the pods' oom_score_adj no lower than containerd's: this machine's
  # root may not lower it (no CAP_SYS_RESOURCE), so the sandboxes' -998
  # failed (runc: "can't get final child's PID from pipe")
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$K8S_STATE/cni/bin"
    conf_dir = "$K8S_STATE/cni/net.d"
EOF
}

kubelet_config() {
  cat >"$K8S_STATE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $K8S_PORT_KUBELET
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $K8S_PORT_KUBELET_HEALTHZ
containerRuntimeEndpoint: unix://$K8S_SOCK
cgroupDriver: cgroupfs
cgroupRoot: /$K8S_CGROUP_ROOT
failCgroupV1: false
failSwapOn: false
podLogsDir: $K8S_STATE/pod-logs
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $K8S_STATE/pki/ca.crt}
authorization: {mode: AlwaysAllow}
# pods are evicted only on a nearly full machine (the tests share it)
evictionHard: {memory.available: 50Mi, nodefs.available: 2%, imagefs.available: 2%, nodefs.inodesFree: 2%}
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
serializeImagePulls: false
EOF
}

cgroup_root() {
  local d parent
  for d in $(k8s_cgroup_dirs); do
    mkdir -p "$d"
    parent=$(dirname "$d")
    if [ -f "$parent/cpuset.cpus" ] && [ -f "$d/cpuset.cpus" ] && [ -z "$(cat "$d/cpuset.cpus")" ]; then
      cat "$parent/cpuset.cpus" >"$d/cpuset.cpus"
      cat "$parent/cpuset.mems" >"$d/cpuset.mems"
    fi
  done
}

start_cluster() {
  local bin=$K8S_CACHE/bin p=$K8S_STATE/pki
  local tls="--cacert $p/ca.crt --cert $p/admin.crt --key $p/admin.key"
  daemon containerd containerd --config "$K8S_STATE/containerd/config.toml"
  wait_for containerd 60 ctr -a "$K8S_SOCK" version
  ctr -a "$K8S_SOCK" -n k8s.io images import "$K8S_CACHE/pause.tar" >/dev/null
  daemon etcd etcd --name rs --data-dir "$K8S_STATE/etcd" \
    --listen-client-urls "https://127.0.0.1:$K8S_PORT_ETCD" --advertise-client-urls "https://127.0.0.1:$K8S_PORT_ETCD" \
    --listen-peer-urls "https://127.0.0.1:$K8S_PORT_ETCD_PEER" --initial-advertise-peer-urls "https://127.0.0.1:$K8S_PORT_ETCD_PEER" \
    --initial-cluster "rs=https://127.0.0.1:$K8S_PORT_ETCD_PEER" \
    --client-cert-auth --trusted-ca-file "$p/ca.crt" --cert-file "$p/server.crt" --key-file "$p/server.key" \
    --peer-client-cert-auth --peer-trusted-ca-file "$p/ca.crt" --peer-cert-file "$p/server.crt" --peer-key-file "$p/server.key"
  # shellcheck disable=SC2086
  wait_for etcd 60 curl -sf $tls "https://127.0.0.1:$K8S_PORT_ETCD/health"
  daemon kube-apiserver "$bin/kube-apiserver" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$K8S_PORT_API" --etcd-servers="https://127.0.0.1:$K8S_PORT_ETCD" \
    --etcd-cafile="$p/ca.crt" --etcd-certfile="$p/admin.crt" --etcd-keyfile="$p/admin.key" \
    --client-ca-file="$p/ca.crt" --tls-cert-file="$p/server.crt" --tls-private-key-file="$p/server.key" \
    --kubelet-client-certificate="$p/admin.crt" --kubelet-client-key="$p/admin.key" \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$p/sa.pub" \
    --service-account-signing-key-file="$p/sa.key" --service-cluster-ip-range=10.96.0.0/24 \
    --authorization-mode=Node,RBAC --anonymous-auth=false --endpoint-reconciler-type=none --allow-privileged=false
  wait_for kube-apiserver 180 "$bin/kubectl" get --raw /readyz
  daemon kube-controller-manager "$bin/kube-controller-manager" --kubeconfig="$KUBECONFIG" --secure-port=0 \
    --leader-elect=false --service-account-private-key-file="$p/sa.key" --root-ca-file="$p/ca.crt" \
    --use-service-account-credentials=false
  daemon kube-scheduler "$bin/kube-scheduler" --kubeconfig="$KUBECONFIG" --secure-port=0 --leader-elect=false
  daemon kubelet "$bin/kubelet" --config="$K8S_STATE/kubelet.yaml" --kubeconfig="$KUBECONFIG" \
    --root-dir="$K8S_STATE/kubelet" --cert-dir="$K8S_STATE/kubelet/pki" --hostname-override="$K8S_NODE" --node-ip=127.0.0.1
  wait_for "the node" 180 "$bin/kubectl" get node "$K8S_NODE"
  # pods are admitted once the namespace's default service account exists
  wait_for "the default service account" 120 "$bin/kubectl" get serviceaccount default
}

main() {
  if ls "$K8S_STATE"/run/*.pid >/dev/null 2>&1; then
    echo "k8s-up: a cluster's state is in $K8S_STATE: run scripts/k8s-down.sh first" >&2
    exit 2
  fi
  install_debs
  mkdir -p "$K8S_CACHE"
  build_kubernetes
  build_pause
  local built=$((SECONDS - start))
  mkdir -p "$K8S_STATE/log" "$K8S_STATE/run" && chmod 700 "$K8S_STATE"
  local k
  for k in $K8S_SYSCTLS; do echo "$k=$(sysctl -n "$k")"; done >"$K8S_STATE/sysctl.saved"
  # the kubelet links its containers' logs in /var/log/containers
  [ -d /var/log/containers ] || touch "$K8S_STATE/made-var-log-containers"
  certs
  containerd_config
  kubelet_config
  cgroup_root
  start_cluster
  k8s_log "Kubernetes v$K8S_VERSION up in $((SECONDS - start)) s ($built s of it building); KUBECONFIG=$KUBECONFIG"
  echo "$KUBECONFIG"
}
main
