#!/bin/bash
# systemd.sh: the guest's last layout, under systemd as PID 1 (suite.sh
# wrote the units; stage 2 handed PID 1 to systemd, which runs this as
# v2guest-systemd.service). User u61000 starts rightsize from a login
# session's scope (root's, not delegated) beside another process, as a
# user's shell does; systemd's user manager delegates every controller
# (the drop-in doctor names). Nothing in the tree can take controllers, so
# rightsize asks the user manager for a delegated scope itself.
here=$(dirname "$0")
. "$here/lib.sh"
echo "=== systemd $(systemctl --version | head -1) as PID 1"
systemctl start dbus.service user@61000.service || systemctl status --no-pager user@61000.service dbus.service
systemd-run --quiet --scope --unit=session-9 --slice=user-61000.slice sleep 100000 & comp=$!
s=$CG/user.slice/user-61000.slice/session-9.scope
for i in $(seq 50); do [ -e $s/cgroup.procs ] && break; sleep 0.2; done
echo "    user manager: $(systemctl is-active user@61000.service), delegated: $(cat $CG/user.slice/user-61000.slice/user@61000.service/cgroup.subtree_control 2>&1)"
layout systemd 61000 $s /mnt/data/u61000 /mnt/data/u61000/pg no
kill $comp
echo "=== systemd layout done"
sync; umount /mnt/data; sync
echo o > /proc/sysrq-trigger
