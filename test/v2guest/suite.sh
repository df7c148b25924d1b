#!/bin/bash
# suite.sh [LAYOUT ... | all]: the layouts of the cgroup v2 guest, each a
# place rightsize is started from as users start it. For each: doctor
# --json, a capped run (--json) with a monitor sampling the kernel's view of
# every rightsize group and postgres process, the stored run, and what is
# left behind, all under /out/LAYOUT for the Go test (TestGuest) to judge.
# Runs as root in the guest; RS is the host's rightsize (run.sh builds it).
here=$(dirname "$0")
. "$here/lib.sh"

LAYOUTS=" ${*:-all} "
want() { [[ $LAYOUTS == *" all "* || $LAYOUTS == *" $1 "* ]]; }
# named: a measurement, not one of CI's layouts; runs only when named
named() { [[ $LAYOUTS == *" $1 "* ]]; }
mkdir -p /root/rs; echo "+cpuset +cpu +io +memory +pids" > $CG/cgroup.subtree_control

# the data disk holds the databases run.sh built on the host (seed.sh):
# /mnt/data/pg (2 warehouses) and u61000's /mnt/data/u61000/pg (1), with
# their secrets files; root's goes where rightsize looks for it
mkdir -p /var/cache/rightsize/secrets && chmod 700 /var/cache/rightsize/secrets
cp -p /mnt/data/.secrets/*.json /var/cache/rightsize/secrets/

want root && layout root root $CG /root/rs /mnt/data/pg no

if want session; then
  mkdir -p $CG/user.slice/session-1.scope; echo "$ALL" > $CG/user.slice/cgroup.subtree_control
  layout session root $CG/user.slice/session-1.scope /root/rs /mnt/data/pg yes
fi
if want service; then
  mkdir -p $CG/system.slice/rightsize.service; echo "$ALL" > $CG/system.slice/cgroup.subtree_control
  layout service root $CG/system.slice/rightsize.service /root/rs /mnt/data/pg no
fi
if want sysdefault; then
  mkdir -p $CG/user2.slice/session-2.scope; echo "+memory +pids" > $CG/user2.slice/cgroup.subtree_control
  layout sysdefault root $CG/user2.slice/session-2.scope /root/rs /mnt/data/pg yes
fi
if want parent; then
  mkdir -p $CG/rightsize.slice $CG/user.slice/session-3.scope; echo "$ALL" > $CG/user.slice/cgroup.subtree_control
  layout parent root $CG/user.slice/session-3.scope /root/rs /mnt/data/pg yes --cgroup-parent /rightsize.slice
fi
if want user; then
  user 61000
  u=$CG/user.slice/user-61000.slice/user@61000.service
  mkdir -p $CG/user.slice/user-61000.slice; echo "$ALL" > $CG/user.slice/cgroup.subtree_control
  delegate $u 61000 "$ALL"
  for d in $u/app.slice $u/app.slice/rightsize.scope; do
    mkdir -p $d; chown -R 61000:61000 $d
  done
  echo "$ALL" > $u/cgroup.subtree_control; echo "$ALL" > $u/app.slice/cgroup.subtree_control
  layout user 61000 $u/app.slice/rightsize.scope /mnt/data/u61000 /mnt/data/u61000/pg no
fi
if want user-noio; then
  # systemd's default delegation to user@.service: cpu memory pids
  user 61001
  u=$CG/user.slice/user-61001.slice/user@61001.service
  mkdir -p $CG/user.slice/user-61001.slice; echo "$ALL" > $CG/user.slice/cgroup.subtree_control
  delegate $u 61001 "+cpu +memory +pids"
  mkdir -p $u/app.slice/rightsize.scope; chown -R 61001:61001 $u/app.slice
  echo "+cpu +memory +pids" > $u/cgroup.subtree_control; echo "+cpu +memory +pids" > $u/app.slice/cgroup.subtree_control
  layout user-noio 61001 $u/app.slice/rightsize.scope /mnt/data/u61001 /mnt/data/u61001/pg no
fi
if want container; then
  # rightsize as the container's only process: it moves itself into a leaf
  mkdir -p $CG/container.scope
  WRAP="unshare -C -m $CGNS" layout container root $CG/container.scope /root/rs /mnt/data/pg no
fi
if want container-shared; then
  # another process in the container beside rightsize: nothing to place in
  mkdir -p $CG/container2.scope
  WRAP="unshare -C -m $CGNS" layout container-shared root $CG/container2.scope /root/rs /mnt/data/pg yes
fi
if want probe; then
  # the storage probe joins an I/O-limited group itself, from a session
  # beside its shell, and goes back to where it was
  mkdir -p $CG/user.slice/session-5.scope /out/probe; echo "$ALL" > $CG/user.slice/cgroup.subtree_control
  (echo $BASHPID > $CG/user.slice/session-5.scope/cgroup.procs && exec sleep 100000) & comp=$!
  echo "=== $(date +%T) probe storage --io-limit riops=200 from user.slice/session-5.scope"
  as root $CG/user.slice/session-5.scope /root/rs probe storage --path /mnt/data --threads 2 --depth 4 --duration 2s --size 32M \
    --engine builtin --io-limit riops=200 --json > /out/probe/probe.json 2> /out/probe/probe.err
  echo $? > /out/probe/probe.rc
  find $CG -name 'rightsize-*' > /out/probe/left-groups.txt
  pgrep -a postgres > /out/probe/left-procs.txt
  tree > /out/probe/tree-after.txt
  kill $comp
  echo "    probe rc $(cat /out/probe/probe.rc)"; tail -2 /out/probe/probe.err | sed 's/^/    /'
fi
if want sweep; then
  mkdir -p $CG/user.slice/session-4.scope; echo "$ALL" > $CG/user.slice/cgroup.subtree_control
  (echo $BASHPID > $CG/user.slice/session-4.scope/cgroup.procs && exec sleep 100000) & comp=$!
  mkdir -p /out/sweep
  # --prewarm: each value's cache is loaded before its ramp-up, so the
  # short runs read what the cache cannot hold, not a cold start
  echo "=== $(date +%T) sweep memory 1G,256M --prewarm from user.slice/session-4.scope"
  as root $CG/user.slice/session-4.scope /root/rs sweep memory --values 1G,256M --pg-bin $PGBIN --data-dir /mnt/data/pg \
    --users 2 --rampup 2s --duration 10s --prewarm --json > /out/sweep/sweep.json 2> /out/sweep/sweep.err
  echo $? > /out/sweep/sweep.rc
  jq -r '.points[] | "    \(.value): \(.blocks_read_per_txn) blocks read per transaction, NOPM \(.nopm)"' /out/sweep/sweep.json
  for id in $(jq -r '.points[].run_id // empty' /out/sweep/sweep.json); do
    as root $CG/user.slice/session-4.scope /root/rs results show "$id" --json > /out/sweep/run-$id.json 2>/dev/null
  done
  find $CG -name 'rightsize-*' > /out/sweep/left-groups.txt
  pgrep -a postgres > /out/sweep/left-procs.txt
  kill $comp
  echo "    sweep rc $(cat /out/sweep/sweep.rc)"; tail -3 /out/sweep/sweep.err | sed 's/^/    /'
fi
if named bandwidth; then
  # issue 48: a write-bandwidth limit predicted on cgroup v2 (io.max
  # wbps throttles the writeback of the pages the server dirtied too, as
  # v1's blkio does not), from the sweep's unlimited first value
  mkdir -p $CG/user.slice/session-5.scope; echo "$ALL" > $CG/user.slice/cgroup.subtree_control
  (echo $BASHPID > $CG/user.slice/session-5.scope/cgroup.procs && exec sleep 100000) & comp=$!
  mkdir -p /out/bandwidth
  for r in $(seq "${ROUNDS:-2}"); do
    echo "=== sweep io none,wbps=1M,wbps=200K,wbps=50K --cpus 1 --predict, round $r"
    as root $CG/user.slice/session-5.scope /root/rs sweep io --values none,wbps=1M,wbps=200K,wbps=50K --cpus 1 --predict --pg-bin $PGBIN \
      --data-dir /mnt/data/pg --users 4 --rampup 5s --duration 90s --json > /out/bandwidth/sweep-$r.json 2> /out/bandwidth/sweep-$r.err
    echo "    rc $?"; tail -2 /out/bandwidth/sweep-$r.err | sed 's/^/    /'
    for id in $(jq -r '.points[].run_id // empty' /out/bandwidth/sweep-$r.json); do
      as root $CG/user.slice/session-5.scope /root/rs results show "$id" --json > /out/bandwidth/run-$id.json 2>/dev/null
    done
    jq -r '.points[] | "    \(.value): NOPM \(.nopm), predicted \(.predicted.nopm // "-") (\(.predicted.nopm_low // "-") to \(.predicted.nopm_high // "-")), error \(.predicted.error_pct // "-") %, in band \(.predicted.in_band // "-"), limit \(.predicted.limit // "-")"' /out/bandwidth/sweep-$r.json
  done
  kill $comp
fi
if want systemd; then
  # the last layout runs under systemd as PID 1: stage 2 hands over to it
  # once this suite is done, and systemd runs systemd.sh (see there)
  user 61000
  find $CG -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null  # systemd makes its own tree
  u=/etc/systemd/system
  mkdir -p $u/user@.service.d $u/dbus.service.d $u/dbus.socket.d $u/user-runtime-dir@.service.d
  # a guest without sysinit: the units systemd.sh starts need nothing else
  for d in user@.service.d dbus.service.d dbus.socket.d user-runtime-dir@.service.d; do
    printf '[Unit]\nDefaultDependencies=no\n' > $u/$d/guest.conf
  done
  # the drop-in doctor names for io and cpuset (systemd delegates cpu memory pids)
  printf '[Service]\nDelegate=cpu cpuset io memory pids\n' > $u/user@.service.d/delegate.conf
  # what pam_systemd and logind give a login; no logind to wait for
  printf '[Service]\nEnvironment=XDG_RUNTIME_DIR=/run/user/%%i\n' > $u/user@.service.d/runtime.conf
  ln -sf /dev/null $u/systemd-logind.service; ln -sf /dev/null $u/systemd-tmpfiles-setup.service
  printf '[Unit]\nDefaultDependencies=no\n[Service]\nType=oneshot\nTimeoutStartSec=infinity\nEnvironment=RS=%s\nExecStart=/bin/bash %s/systemd.sh\nStandardOutput=append:/out/suite.log\nStandardError=inherit\n' \
    "$RS" "$(cd "$here" && pwd)" > $u/v2guest-systemd.service
  touch /run/rightsize-systemd-next
fi
echo "=== $(date +%T) done"
