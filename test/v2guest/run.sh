#!/usr/bin/env bash
# run.sh OUT [LAYOUT ...]: boots a guest with a pure cgroup v2 hierarchy
# (Debian's kernel under qemu's TCG: /dev/kvm on the project's machines
# runs only PVM guest kernels) and runs suite.sh's layouts in it (all when
# none is named). The guest runs the host's own binaries: the host's root,
# read-only over 9p under a tmpfs overlay. Results land in OUT (the
# Go test TestGuest reads them). Needs qemu-system-x86, busybox-static and
# the kernel package that scripts/install-test-deps.sh downloads.
# RIGHTSIZE_V2GUEST_ROUNDS sets how many sweeps the bandwidth layout runs
# (2 unless set).
set -euo pipefail
out=$(realpath -m "$1"); shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${RIGHTSIZE_V2GUEST_WORK:-/var/tmp/rightsize-v2guest}
debs=${RIGHTSIZE_V2GUEST_DEBS:-/var/cache/rightsize-v2guest}
mkdir -p "$work" "$out"
chmod 755 "$work"

deb=$(ls "$debs"/linux-image-*.deb 2>/dev/null | sort | tail -1)
[ -n "$deb" ] || { echo "no kernel package in $debs: run scripts/install-test-deps.sh" >&2; exit 3; }
kern=$work/kern-$(basename "$deb" .deb)
if [ ! -d "$kern" ]; then
  rm -rf "$kern.tmp"; dpkg-deb -x "$deb" "$kern.tmp"; mv "$kern.tmp" "$kern"
fi
kver=$(ls "$kern/lib/modules" | head -1)
busybox=$(command -v busybox || echo /bin/busybox)

# the initramfs: static busybox, init.sh, the modules it loads (in order)
mods="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
  drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk
  net/9p/9pnet net/9p/9pnet_virtio fs/netfs/netfs fs/fscache/fscache fs/9p/9p
  fs/overlayfs/overlay crypto/crc32c_generic lib/crc16 fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4"
rd=$work/initramfs.d; rm -rf "$rd"; mkdir -p "$rd/bin" "$rd/modules"
cp "$busybox" "$rd/bin/busybox"
cp "$here/init.sh" "$rd/init"; chmod 755 "$rd/init"
: > "$rd/modules.list"
for m in $mods; do
  f=$(ls "$kern/lib/modules/$kver/kernel/$m.ko"* | head -1)
  case $f in
    *.xz) xz -dc "$f" > "$rd/modules/$(basename "$m").ko" ;;
    *) cp "$f" "$rd/modules/$(basename "$m").ko" ;;
  esac
  basename "$m" >> "$rd/modules.list"
done
(cd "$rd" && find . | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1) > "$work/initramfs.gz"

# rightsize, built here (the guest has no Go toolchain cache to build with)
# as go test builds it, so that after make test's other packages only the
# main package is compiled; the guest runs the host's root, libc included
(cd "$repo" && go build -o "$work/rightsize" ./cmd/rightsize)
chmod 755 "$work/rightsize"

# the layouts' databases, built here (seed.sh) rather than in the guest
seed=$work/seed
rm -rf "$seed"; mkdir -m 755 "$seed"
unshare -m "$here/seed.sh" "$seed" "$work/rightsize" "$work"
echo "v2guest: built the guest's databases: $(tail -2 "$work/build.out" | head -1)"

layouts=$(IFS=,; echo "${*:-all}")
accel="-accel tcg,thread=multi -cpu max"
# boot BOOT_WAIT: one boot; a guest that has not started the suite within
# BOOT_WAIT seconds (a TCG boot stalls now and then on a loaded host) is
# killed and reported as 75
boot() {
  qemu-system-x86_64 $accel -smp 2 -m 3584 -nographic -no-reboot \
    -kernel "$kern/boot/vmlinuz-$kver" -initrd "$work/initramfs.gz" \
    -append "console=ttyS0 panic=-1 loglevel=4 systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all stage2=$here/stage2.sh rs=$work/rightsize rsargs=$layouts rounds=${RIGHTSIZE_V2GUEST_ROUNDS:-2}" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs local,path="$out",mount_tag=out,security_model=none \
    -drive file="$work/data.img",if=virtio,format=raw,cache=unsafe \
    -nic none > "$out/console.log" 2>&1 &
  local q=$! waited=0
  while kill -0 $q 2>/dev/null; do
    if [ ! -f "$out/suite.log" ] && [ $waited -ge $1 ]; then kill $q; wait $q; return 75; fi
    if [ $waited -ge ${RIGHTSIZE_V2GUEST_TIMEOUT:-2400} ]; then kill $q; wait $q; echo "v2guest: timed out" >&2; return 1; fi
    sleep 5; waited=$((waited + 5))
  done
  wait $q
}
for try in 1 2 3; do
  rm -rf "${out:?}"/*
  rm -f "$work/data.img"; truncate -s 4G "$work/data.img"; mkfs.ext4 -q -F -d "$seed" "$work/data.img"
  echo "v2guest: booting $kver (TCG), layouts $layouts, results in $out (try $try)"
  rc=0; boot 300 || rc=$?
  [ $rc -eq 75 ] || break
  echo "v2guest: the guest did not reach its suite in 300 s; console:" >&2; tail -5 "$out/console.log" >&2
done
[ $rc -eq 0 ] || { echo "qemu failed (exit $rc); console: $out/console.log" >&2; tail -20 "$out/console.log" >&2; exit 1; }
rm -rf "$work/data.img" "$seed"
cp "$work/build.out" "$work/build-user.out" "$out/"
[ -f "$out/suite.log" ] || { echo "the guest wrote no suite.log; console:" >&2; tail -30 "$out/console.log" >&2; exit 1; }
