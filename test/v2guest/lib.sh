#!/bin/bash
# lib.sh: what suite.sh and systemd.sh share: the caps and run asked, and
# how a layout is run and recorded under /out/LAYOUT. Sourced, not run.
CG=/sys/fs/cgroup PGBIN=/usr/lib/postgresql/15/bin ALL="+cpuset +cpu +io +memory +pids"
CAPS=(--cpus 1 --memory 512M --io-limit riops=300,wiops=300)
# 1 s + 5 s: every layout judges where the server ran and what was left,
# not its figures (2 s + 10 s took ~7 s more a layout under TCG)
RUN=(run --pg-bin $PGBIN --users 2 --rampup 1s --duration 5s --json)

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

# monitor PID FILE: every second while PID runs, each rightsize group's files
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
    sleep 1
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
  echo "=== $(date +%T) layout $name: $user in $cg $*"
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
  settle
  find $CG -name 'rightsize-*' > "$w/left-groups.txt"
  pgrep -a postgres > "$w/left-procs.txt"
  tree > "$w/tree-after.txt"
  [ -n "$comp_pid" ] && kill $comp_pid
  echo "    doctor rc $(cat $w/doctor.rc), run rc $(cat $w/run.rc), stored run '${id}'"
  tail -3 "$w/run.err" | sed 's/^/    /'
}

# settle: wait up to 5 s for rightsize's groups to go (systemd removes a
# transient scope once its last process has exited).
settle() {
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    [ -z "$(find $CG -name 'rightsize-*')" ] && return
    sleep 0.5
  done
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

