#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian machine and nothing
# more: fio (storage probe), mariadb-server (MySQL/MariaDB engine tests; the
# tests start their own private mariadbd, never the system service),
# chromium (the HTML report is opened headless) and pg_basebackup (backup
# probe), qemu-system-x86 and busybox-static with Debian's kernel package
# (the cgroup v2 guest of test/v2guest, unpacked there, never installed),
# and for that guest, which runs the host's root, PostgreSQL 15's server
# binaries (/usr/lib/postgresql/15/bin; the service is never started) and jq.
# The PostgreSQL server needs nothing: the embedded binaries are downloaded
# from Maven Central on first use.
set -euo pipefail
need=()
command -v fio >/dev/null 2>&1 || need+=(fio)
{ command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; } || need+=(mariadb-server)
{ command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; } || need+=(chromium)
# pg_basebackup for the backup probe (the embedded binaries do not ship it)
{ command -v pg_basebackup >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_basebackup >/dev/null 2>&1; } || need+=(postgresql-client)
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
[ -x /usr/lib/postgresql/15/bin/initdb ] || need+=(postgresql-15)
command -v jq >/dev/null 2>&1 || need+=(jq)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
kdebs=${RIGHTSIZE_V2GUEST_DEBS:-/var/cache/rightsize-v2guest}
guest_kernel() {
  ls "$kdebs"/linux-image-*.deb >/dev/null 2>&1 && return 0
  # the kernel package linux-image-amd64 points at, downloaded, not installed
  local pkg
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
  [ -n "$pkg" ] || { echo "install-test-deps: no kernel package found for the cgroup v2 guest" >&2; return 1; }
  $SUDO mkdir -p "$kdebs"
  (cd "$kdebs" && $SUDO apt-get download -qq "$pkg" 2>&1 | grep -v "unsandboxed" || true)
  ls "$kdebs"/linux-image-*.deb >/dev/null
}
if [ ${#need[@]} -eq 0 ]; then
  guest_kernel || { $SUDO apt-get update -qq; guest_kernel; }
  exit 0
fi
echo "installing: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
# keep package scripts from starting system-wide services
printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
$SUDO chmod +x /usr/sbin/policy-rc.d
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
$SUDO rm -f /usr/sbin/policy-rc.d
guest_kernel
