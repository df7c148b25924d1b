#!/bin/bash
# suite.sh [LAYOUT ... | all]: the layouts of the cgroup v2 guest, each a
# place rightsize is started from as users start it. For each: doctor
# --json, a capped run (--json) with a monitor sampling the kernel's view of
# every rightsize group and postgres process, the stored run, and what is
# left behind, all under /out/LAYOUT for the Go test (TestGuest) to judge.
# Runs as root in the guest; RS is the static rightsize.
CG=/sys/fs/cgroup PGBIN=/usr/lib/postgresql/15/bin ALL="+cpuset +cpu +io +memory +pids"
CAPS=(--cpus 1 --memory 512M --io-limit riops=300,wiops=300)
RUN=(run --pg-bin $PGBIN --users 2 --rampup 2s --duration 10s --json)

# as USER CGROUP HOME CMD...: CMD (rightsize's arguments) as USER, started
# inside CGROUP (the subshell joins it, then execs), in HOME.
as() {
  local user=$1 cg=$2 home=$3; shift 3
  local env=(env HOME=$home RIGHTSIZE_STORE=$home/rightsize.db XDG_CACHE_HOME=$home/.cache PATH=$PATH)
  local priv=()
  [ "$user" != root ] && priv=(setpriv --reuid="$user" --regid="$user" --init-groups)
  (cd "$home" && echo $BASHPID > "$cg/cgroup.procs" && exec "${priv[@]}" $WRAP "${env[@]}" "$RS" "$@")
}

# a container's view: a cgroup namespace whose root is the group rightsize
# was started in, cgroup2 mounted afresh there (WRAP=$CGNS as() runs it).
CGNS=/tmp/cgns.sh
printf '#!/bin/sh\numount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec "$@"\n' > $CGNS; chmod 755 $CGNS

# monitor PID FILE: every 2 s while PID runs, each rightsize group's files
# (G dir file value) and each postgres process's group (P pid cgroup).
monitor() {
  local pid=$1 file=$2 d f p
  while kill -0 "$pid" 2>/dev/null; do
    echo "T $(date +%s)"
    for d in $(find $CG -type d -name 'rightsize-*'); do
      for f in cgroup.procs cgroup.subtree_control cpuset.cpus.effective cpu.max memory.max io.max; do
        [ -e "$d/$f" ] && echo "G $d $f $(tr '\n' ' ' < "$d/$f")"
      done
    done
    for p in $(pgrep -x postgres); do
      echo "P $p $(cut -d: -f3 /proc/$p/cgroup 2>/dev/null)"
    done
    sleep 2
  done > "$file"
}

# tree FILE: every group with its controllers, subtree_control and processes.
tree() {
  local d
  for d in $(find $CG -type d | sort); do
    echo "$d ctrl=[$(cat $d/cgroup.controllers)] subtree=[$(cat $d/cgroup.subtree_control)] procs=[$(tr '\n' ' ' < $d/cgroup.procs)]"
  done
}

# layout NAME USER CGROUP HOME DATA COMPANION ARGS...: one layout, as the
# file comment says; ARGS are added to doctor and run.
layout() {
  local name=$1 user=$2 cg=$3 home=$4 data=$5 comp=$6; shift 6
  local w=/out/$name comp_pid="" rpid mpid id last
  mkdir -p "$w"
  echo "=== layout $name: $user in $cg $*"
  if [ "$comp" = yes ]; then (echo $BASHPID > "$cg/cgroup.procs" && exec sleep 100000) & comp_pid=$!; sleep 0.5; fi
  tree > "$w/tree-before.txt"
  last=$(as "$user" "$cg" "$home" results list --json 2>/dev/null | jq -r '.[0].id // empty')
  as "$user" "$cg" "$home" doctor --json --data-dir "$data" "$@" > "$w/doctor.json" 2> "$w/doctor.err"
  echo $? > "$w/doctor.rc"
  as "$user" "$cg" "$home" "${RUN[@]}" --data-dir "$data" "${CAPS[@]}" "$@" > "$w/run.json" 2> "$w/run.err" &
  rpid=$!
  monitor $rpid "$w/monitor.txt" &
  mpid=$!
  wait $rpid; echo $? > "$w/run.rc"
  wait $mpid
  id=$(as "$user" "$cg" "$home" results list --json 2>/dev/null | jq -r '.[0].id // empty')
  [ "$id" = "$last" ] && id=""  # no run stored by this layout
  [ -n "$id" ] && as "$user" "$cg" "$home" results show "$id" --json > "$w/stored.json" 2>/dev/null
  find $CG -name 'rightsize-*' > "$w/left-groups.txt"
  pgrep -a postgres > "$w/left-procs.txt"
  tree > "$w/tree-after.txt"
  [ -n "$comp_pid" ] && kill $comp_pid
  echo "    doctor rc $(cat $w/doctor.rc), run rc $(cat $w/run.rc), stored run '${id}'"
  tail -3 "$w/run.err" | sed 's/^/    /'
}

# user UID: a user with its home on the data disk (io.max needs its device).
user() {
  id "u$1" >/dev/null 2>&1 || useradd -u "$1" -m -d "/mnt/data/u$1" "u$1"
}

# delegate DIR UID CONTROLLERS: DIR becomes a subtree delegated to UID, as
# systemd's Delegate= does (the directory and its cgroup.procs,
# cgroup.subtree_control and cgroup.threads owned by the user), with
# CONTROLLERS enabled in its parent.
delegate() {
  local dir=$1 uid=$2 ctrls=$3
  mkdir -p "$dir"
  echo "$ctrls" > "$(dirname "$dir")/cgroup.subtree_control"
  chown "$uid:$uid" "$dir" "$dir/cgroup.procs" "$dir/cgroup.subtree_control" "$dir/cgroup.threads"
}

LAYOUTS=" ${*:-all} "
want() { [[ $LAYOUTS == *" all "* || $LAYOUTS == *" $1 "* ]]; }
mkdir -p /root/rs; echo "+cpuset +cpu +io +memory +pids" > $CG/cgroup.subtree_control

if [ "$LAYOUTS" != " probe " ]; then  # every other layout runs on this build
  echo "=== build (root cgroup, 2 warehouses)"
  as root $CG /root/rs build --pg-bin $PGBIN --data-dir /mnt/data/pg --warehouses 2 > /out/build.out 2>&1; echo "    build rc $?"
fi

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
  as 61000 $u/app.slice/rightsize.scope /mnt/data/u61000 build --pg-bin $PGBIN --data-dir /mnt/data/u61000/pg --warehouses 1 > /out/build-user.out 2>&1
  echo "    user build rc $?"
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
  echo "=== probe storage --io-limit riops=200 from user.slice/session-5.scope"
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
  echo "=== sweep memory 1G,256M from user.slice/session-4.scope"
  as root $CG/user.slice/session-4.scope /root/rs sweep memory --values 1G,256M --pg-bin $PGBIN --data-dir /mnt/data/pg \
    --users 2 --rampup 2s --duration 10s --json > /out/sweep/sweep.json 2> /out/sweep/sweep.err
  echo $? > /out/sweep/sweep.rc
  for id in $(jq -r '.points[].run_id // empty' /out/sweep/sweep.json); do
    as root $CG/user.slice/session-4.scope /root/rs results show "$id" --json > /out/sweep/run-$id.json 2>/dev/null
  done
  find $CG -name 'rightsize-*' > /out/sweep/left-groups.txt
  pgrep -a postgres > /out/sweep/left-procs.txt
  kill $comp
  echo "    sweep rc $(cat /out/sweep/sweep.rc)"; tail -3 /out/sweep/sweep.err | sed 's/^/    /'
fi
echo "=== done"
