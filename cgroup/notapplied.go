package cgroup

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotApplied marks a cap that was asked and cannot be applied on this
// machine (bad input: the run would measure no cap).
var ErrNotApplied = errors.New("cap not applied")

// NotAppliedError says which caps cannot be applied, why, and the fix.
type NotAppliedError struct {
	Report Report
	Fix    string
}

func (e *NotAppliedError) Error() string {
	why := e.Report.NoGroup
	if why == "" {
		why = strings.Join(e.Report.NotApplied, "; ")
	}
	return fmt.Sprintf("cannot apply %s: %s; fix: %s", strings.Join(e.Report.Missing, " and "), why, e.Fix)
}

// Is makes errors.Is(err, ErrNotApplied) hold.
func (e *NotAppliedError) Is(target error) bool { return target == ErrNotApplied }

// bestEffort is the last resort every fix names.
const bestEffort = "or --caps best-effort to measure without them (the run is then marked caps not applied)"

// fixFor is the fix for what r says went wrong on machine m.
func fixFor(r Report, m machine) string {
	scope := "systemd-run --scope -p Delegate=yes rightsize ..."
	if !m.root {
		scope = "systemd-run --user --scope -p Delegate=yes rightsize ..."
	}
	switch {
	case strings.Contains(r.NoGroup, "--cgroup-parent"):
		return "name with --cgroup-parent an existing group that holds no process and that you may write, or leave it out to let rightsize find one, " + bestEffort
	case strings.Contains(r.NoGroup, "not running as root"):
		return "run rightsize as root, " + bestEffort
	case strings.Contains(r.NoGroup, ErrUnavailable.Error()):
		return "mount the cgroup controllers (cpuset, cpu, memory, io) or run where they are, " + bestEffort
	case strings.Contains(r.NoGroup, "offers none of"):
		return delegateFix(r.Missing)
	case r.NoGroup != "" && m.systemd:
		return "start rightsize in a delegated scope (" + scope + "), or name a group with no process in it that you may write with --cgroup-parent PATH, " + bestEffort
	case r.NoGroup != "":
		return "run rightsize as root as the only process of its group, or name a group with no process in it that you may write with --cgroup-parent PATH, " + bestEffort
	}
	return delegateFix(r.Missing)
}

// delegateFix says how to delegate the controllers of the missing caps.
func delegateFix(missing []string) string {
	ctrls := strings.Join(controllersOf(missing), " ")
	return "delegate " + ctrls + " to the group rightsize makes its groups under (as root: echo +CONTROLLER > cgroup.subtree_control of each group above it; " +
		"for a user's systemd manager: Delegate=cpu cpuset io memory pids in /etc/systemd/system/user@.service.d/delegate.conf, systemctl daemon-reload, log in again), " + bestEffort
}

// controllersOf maps Report.Missing's words to their controllers.
func controllersOf(missing []string) []string {
	var out []string
	for _, m := range missing {
		out = append(out, map[string]string{CapQuota: CPU, CapMemory: Memory, CapIO: IO}[m])
	}
	return out
}
