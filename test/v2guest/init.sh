#!/bin/busybox sh
# Stage 1 of the cgroup v2 guest (the initramfs's /init): load the modules
# for virtio, 9p, overlayfs and ext4, mount the host's root read-only over
# 9p under a tmpfs overlay (the guest runs the host's binaries), and hand
# over to stage 2 (named on the kernel command line: stage2=PATH).
/bin/busybox mkdir -p /proc /sys /dev /lower /upper /newroot
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.list); do
  insmod "/modules/$m.ko" || echo "stage1: insmod $m failed"
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /lower || { echo "stage1: 9p mount failed"; poweroff -f; }
mount -t tmpfs -o size=1200m,mode=755 tmpfs /upper
mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || { echo "stage1: overlay failed"; poweroff -f; }
for fs in proc sys dev; do mkdir -p /newroot/$fs; done
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
stage2=$(sed -n 's/.*stage2=\([^ ]*\).*/\1/p' /proc/cmdline)
umount /dev /sys /proc
exec switch_root /newroot /bin/bash "$stage2"
