#!/usr/bin/env bash
# Stops the cluster scripts/k8s-up.sh started and leaves nothing of it: its
# pods' containers, the kubelet and the control plane, containerd and its
# shims, their mounts, the kubelet's cgroups and the state directory; the
# kernel settings the kubelet changed are restored. The cache of built
# binaries stays. Safe to run when nothing is up.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/k8s-lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "k8s-down: run as root" >&2; exit 2; }

# stop NAME: SIGTERM to the daemon started as NAME, SIGKILL after 15 s.
stop() {
  local f=$K8S_STATE/run/$1.pid pid i
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if [ -d "/proc/$pid" ] && grep -q "$1" "/proc/$pid/cmdline" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    for ((i = 0; i < 30; i++)); do [ -d "/proc/$pid" ] || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$f"
}

# containers removes every task and container of the cluster's containerd
# (the pods' and their sandboxes'), so that their shims exit.
containers() {
  [ -S "$K8S_SOCK" ] || return 0
  local c=(ctr -a "$K8S_SOCK" -n k8s.io) id
  for id in $("${c[@]}" tasks ls -q 2>/dev/null); do "${c[@]}" tasks kill -s SIGKILL "$id" >/dev/null 2>&1; done
  sleep 1
  for id in $("${c[@]}" tasks ls -q 2>/dev/null); do "${c[@]}" tasks rm -f "$id" >/dev/null 2>&1; done
  for id in $("${c[@]}" containers ls -q 2>/dev/null); do "${c[@]}" containers rm "$id" >/dev/null 2>&1; done
}

# shims kills the runc shims still serving this containerd (found by the
# socket in their command line).
shims() {
  local p
  for p in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q -- "-address $K8S_SOCK "; then
      kill -9 "${p#/proc/}" 2>/dev/null
    fi
  done
}

# cgroups removes the kubelet's cgroup tree, deepest first, killing what is
# left in it.
cgroups() {
  local d dir
  for d in $(k8s_cgroup_dirs); do
    [ -d "$d" ] || continue
    for dir in $(find "$d" -depth -type d); do
      [ -f "$dir/cgroup.procs" ] && xargs -r kill -9 <"$dir/cgroup.procs" 2>/dev/null
      rmdir "$dir" 2>/dev/null || { sleep 1; rmdir "$dir" 2>/dev/null; } || k8s_log "cannot remove cgroup $dir"
    done
  done
}

main() {
  [ -d "$K8S_STATE" ] || return 0
  stop kubelet
  containers
  stop kube-scheduler
  stop kube-controller-manager
  stop kube-apiserver
  stop etcd
  stop containerd
  shims
  cgroups
  # the containers' rootfs and shm mounts, the kubelet's volumes
  findmnt -rn -o TARGET | grep "^$K8S_STATE/" | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  if [ -f "$K8S_STATE/sysctl.saved" ]; then
    sysctl -q -p "$K8S_STATE/sysctl.saved" >/dev/null || k8s_log "could not restore the kernel settings in $K8S_STATE/sysctl.saved"
  fi
  # the kubelet links its containers' logs in /var/log/containers: the links
  # into the state directory go, and the directory if k8s-up.sh made it
  local l
  for l in /var/log/containers/*.log; do
    case "$(readlink "$l" 2>/dev/null)" in "$K8S_STATE"/*) rm -f "$l" ;; esac
  done
  [ -f "$K8S_STATE/made-var-log-containers" ] && rmdir /var/log/containers 2>/dev/null
  rm -rf "$K8S_STATE"
  return 0
}
main
