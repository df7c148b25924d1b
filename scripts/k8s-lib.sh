# Shared settings of scripts/k8s-up.sh and scripts/k8s-down.sh (sourced).
# Every path and port can be moved with its environment variable; all
# listeners are on 127.0.0.1.
K8S_VERSION=${RIGHTSIZE_K8S_VERSION:-1.37.2}
# built binaries and images, kept between runs, keyed by version
K8S_CACHE=${RIGHTSIZE_K8S_CACHE:-/var/cache/rightsize/k8s}/v$K8S_VERSION
# the running cluster's state, removed by k8s-down.sh
K8S_STATE=${RIGHTSIZE_K8S_STATE:-/var/lib/rightsize-k8s}
K8S_PORT_ETCD=${RIGHTSIZE_K8S_PORT_ETCD:-16479}
K8S_PORT_ETCD_PEER=$((K8S_PORT_ETCD + 1))
K8S_PORT_API=${RIGHTSIZE_K8S_PORT_API:-16443}
K8S_PORT_KUBELET=${RIGHTSIZE_K8S_PORT_KUBELET:-16450}
K8S_PORT_KUBELET_HEALTHZ=$((K8S_PORT_KUBELET + 1))
# the kubelet's cgroup root: its pods' cgroups live under it and nowhere else
K8S_CGROUP_ROOT=rightsize-k8s
K8S_NODE=rightsize-k8s
K8S_SOCK=$K8S_STATE/containerd/containerd.sock
K8S_PAUSE_IMAGE=localhost/rightsize/pause:1
# the kernel settings the kubelet sets at start (vm.overcommit_memory=1,
# kernel.panic_on_oops=1, ...): saved by k8s-up.sh, restored by k8s-down.sh
K8S_SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"
export KUBECONFIG=$K8S_STATE/admin.kubeconfig

k8s_log() { echo "k8s: $*" >&2; }

# k8s_cgroup_dirs prints the cgroup root's directory in every mounted
# hierarchy (cgroup v1: one per controller; v2: one).
k8s_cgroup_dirs() {
  local m
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    echo "/sys/fs/cgroup/$K8S_CGROUP_ROOT"
    return
  fi
  for m in /sys/fs/cgroup/*/; do
    [ -f "$m/cgroup.procs" ] && echo "${m%/}/$K8S_CGROUP_ROOT"
  done
}
