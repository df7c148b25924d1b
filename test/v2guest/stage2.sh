#!/bin/bash
# Stage 2 of the cgroup v2 guest (PID 1 in the overlay root): a pure cgroup
# v2 hierarchy at /sys/fs/cgroup, the results folder (9p, read-write) at
# /out, the data disk (ext4 on virtio, so io.max has a device) at
# /mnt/data; runs suite.sh from this folder, then powers off (or hands
# PID 1 to systemd for the systemd layout, see systemd.sh).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C
here=$(dirname "$0")
ln -sf /proc/self/fd /dev/fd
mkdir -p /dev/shm /dev/pts; mount -t tmpfs -o mode=1777 tmpfs /dev/shm; mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=755 tmpfs /run
# /tmp stays the overlay's: this folder may be a checkout under the host's /tmp
umount /sys/fs/cgroup 2>/dev/null
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
mkdir -p /out /mnt/data
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none out /out
mount -t ext4 /dev/vda /mnt/data
hostname v2guest
ip link set lo up 2>/dev/null || busybox ip link set lo up
args=$(sed -n 's/.*rsargs=\([^ ]*\).*/\1/p' /proc/cmdline)
{
  echo "=== guest $(uname -r), $(nproc) cpus, root cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
  RS=$(sed -n 's/.*rs=\([^ ]*\).*/\1/p' /proc/cmdline) ROUNDS=$(sed -n 's/.* rounds=\([0-9]*\).*/\1/p' /proc/cmdline) bash "$here/suite.sh" ${args//,/ }
  echo "=== suite exit $?"
} > /out/suite.log 2>&1
# the systemd layout: systemd becomes PID 1 and runs systemd.sh, which
# powers off
[ -f /run/rightsize-systemd-next ] && exec /lib/systemd/systemd --unit=v2guest-systemd.service --log-target=console --log-level=warning
sync; umount /mnt/data; sync
echo o > /proc/sysrq-trigger
