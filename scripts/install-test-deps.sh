#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian machine and nothing
# more: fio (storage probe), mariadb-server (MySQL/MariaDB engine tests; the
# tests start their own private mariadbd, never the system service),
# chromium (the HTML report is opened headless) and pg_basebackup (backup
# probe). The PostgreSQL server needs nothing: the embedded binaries are
# downloaded from Maven Central on first use.
set -euo pipefail
need=()
command -v fio >/dev/null 2>&1 || need+=(fio)
{ command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; } || need+=(mariadb-server)
{ command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; } || need+=(chromium)
# pg_basebackup for the backup probe (the embedded binaries do not ship it)
{ command -v pg_basebackup >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_basebackup >/dev/null 2>&1; } || need+=(postgresql-client)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
# keep package scripts from starting system-wide services
printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
$SUDO chmod +x /usr/sbin/policy-rc.d
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
$SUDO rm -f /usr/sbin/policy-rc.d
