#!/bin/bash
# seed.sh SEED RS LOGDIR: the databases the guest's layouts run on, built on
# the host (natively: under TCG the guest took ~3 minutes for them) into
# SEED, which run.sh copies onto the guest's data disk (mkfs.ext4 -d).
# run.sh runs this as root in a mount namespace of its own (unshare -m),
# where SEED is mounted at /mnt/data, the data disk's place in the guest,
# and a tmpfs at /var/cache/rightsize keeps root's rightsize files apart
# from the host's: the data directories and their secrets files (named
# after the data directory's path) are then the guest's own.
#   SEED/pg           root's, 2 warehouses (root's layouts and the sweep)
#   SEED/u61000/pg    user u61000's, 1 warehouse, with its secrets under
#                     its home's .cache, all owned by 61000
#   SEED/.secrets     root's secrets file (suite.sh copies it into the
#                     guest's /var/cache/rightsize/secrets)
set -euo pipefail
seed=$1 rs=$2 logs=$3
pgbin=/usr/lib/postgresql/15/bin
case "$seed $rs $logs" in
  */mnt/*|*/var/cache/rightsize*) echo "seed: $seed, $rs and $logs must be outside /mnt and /var/cache/rightsize (hidden here)" >&2; exit 1 ;;
esac
mount -t tmpfs -o mode=755 tmpfs /mnt
mkdir -p /mnt/data /var/cache/rightsize
mount --bind "$seed" /mnt/data
mkdir -m 755 /mnt/data/u61000  # as useradd -m makes it (login.defs: UMASK 022)
mount -t tmpfs -o mode=755 tmpfs /var/cache/rightsize
export RIGHTSIZE_STORE=/var/cache/rightsize/results.db
# both at once: each alone leaves a core idle part of the time
"$rs" build --pg-bin $pgbin --data-dir /mnt/data/pg --warehouses 2 > "$logs/build.out" 2>&1 & root=$!
"$rs" build --pg-bin $pgbin --data-dir /mnt/data/u61000/pg --warehouses 1 > "$logs/build-user.out" 2>&1 & user=$!
rc=0
wait $root || { echo "seed: build of /mnt/data/pg failed:" >&2; tail -5 "$logs/build.out" >&2; rc=1; }
wait $user || { echo "seed: build of /mnt/data/u61000/pg failed:" >&2; tail -5 "$logs/build-user.out" >&2; rc=1; }
[ $rc -eq 0 ] || exit 1
s=/var/cache/rightsize/secrets
us=/mnt/data/u61000/.cache/rightsize/secrets
mkdir -p /mnt/data/.secrets $us
chmod 700 /mnt/data/.secrets $us
for f in $s/*.json; do
  case $(jq -r .data_dir "$f") in
    /mnt/data/pg) cp -p "$f" /mnt/data/.secrets/ ;;
    /mnt/data/u61000/pg) cp -p "$f" $us/ ;;
  esac
done
chown -R 61000:61000 /mnt/data/u61000
