package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

func newNeighbourCmd() *cobra.Command {
	var tf targetFlags
	var rf runFlags
	var o scenario.NeighbourOptions
	cmd := &cobra.Command{
		Use:   "neighbour",
		Short: "Noisy neighbour: N managed servers on the same storage, each loaded at once, then backups looping on K of them",
		Long:  neighbourLong,
		Example: `  rightsize build --warehouses 10
  rightsize neighbour --instances 3 --users 8 --rampup 30s --duration 20m --backup-instances 1 --backup-every 100s --backup-cycles 10
  rightsize neighbour --resume 20261124-041500-ab12cd`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := resumeKeepsShape(cmd, o.Resume); err != nil {
				return badInput(err)
			}
			ro, err := rf.options(cmd)
			if err != nil {
				return err
			}
			tf.forUsers(ro.Users, ro.Connections)
			o.Run, o.Label, o.BackupBinDir = ro, ro.Label, tf.pgBin
			o.Run.Version, o.Run.Commit = version, commit
			if err := o.Validate(); err != nil && o.Resume == "" {
				return badInput(err)
			}
			c, err := tf.config(false, 2, o.Run)
			if err != nil {
				return err
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			errOut := cmd.ErrOrStderr()
			o.OnEvent = func(s string) { fmt.Fprintf(errOut, "%s %s\n", time.Now().Format("15:04:05"), s) }
			res, err := execute.Neighbour(cmd.Context(), st, c, o, tf.policy())
			if errors.Is(err, scenario.ErrBadOptions) {
				return badInput(err)
			}
			if res == nil {
				return err
			}
			if rf.json {
				if jerr := printJSON(cmd, res); jerr != nil {
					return jerr
				}
			} else {
				writeNeighbour(cmd.OutOrStdout(), res)
			}
			return err
		},
	}
	tf.register(cmd)
	rf.register(cmd)
	f := cmd.Flags()
	f.IntVar(&o.Instances, "instances", 2, "managed servers, each with its own copy of the build")
	f.IntVar(&o.BackupInstances, "backup-instances", 1, "instances the backup loop runs on in the backup phase")
	f.DurationVar(&o.BackupEvery, "backup-every", 100*time.Second, "start a backup cycle this often (0: back to back)")
	f.IntVar(&o.BackupCycles, "backup-cycles", 10, "backup+restore cycles per backed-up instance")
	f.StringVar(&o.Resume, "resume", "", "continue an interrupted scenario (id or label): runs stored complete are kept")
	return cmd
}

// neighbourLong is rightsize neighbour's help text.
const neighbourLong = `neighbour copies the build of the managed target (--target embedded or
mariadb, --data-dir) once per instance, starts --instances servers (each with
the caps given: --cpus, --memory, --io-limit), and drives all of them at once
with --users each: phase "baseline", then phase "backup", in which the backup
probe (backup and restore, --backup-cycles cycles, one every --backup-every)
loops on the first --backup-instances of them while all keep their load. Let
--duration cover the backup cycles. One run per instance and phase is stored,
grouped as one scenario (kind neighbour); the backup cycles as backup probes.
Copies, servers and cgroups are removed at the end, also after Ctrl-C.

--cpus N gives each instance cores of its own when --instances × N whole
cores fit in the machine (instance n1 the highest, n2 the next below ...,
the driver the cores left); when they do not fit, the instances share the
same cores and the scenario says so (stored with it).

Ctrl-C keeps the runs measured, marks the scenario partial and removes
every server, copy and cgroup; --resume SCENARIO continues it with its own
instances, backup settings, users, ramp-up and duration, measuring only the
runs not stored complete (a phase is run again for its unfinished
instances, with the backup loop when it is the backup phase).`

// shapeFlags are the flags a resumed scenario takes from the store.
var shapeFlags = []string{"instances", "backup-instances", "backup-every", "backup-cycles", "users", "rampup", "duration", "label"}

// resumeKeepsShape refuses --resume with a flag that would change the
// scenario's shape.
func resumeKeepsShape(cmd *cobra.Command, resume string) error {
	if resume == "" {
		return nil
	}
	for _, f := range shapeFlags {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("--%s: --resume %s continues the scenario with its own --%s; leave it out", f, resume, f)
		}
	}
	return nil
}

// writeNeighbour prints TPM, NOPM and New-Order p99 per instance and
// phase (a pgbench workload's TPS, its figure's TPS and p99), and the
// backup cycles.
func writeNeighbour(w io.Writer, r *scenario.NeighbourResult) {
	fmt.Fprintf(w, "\nneighbour %s (%s)", r.ID, r.Status)
	if r.Label != "" {
		fmt.Fprintf(w, " · label %s", r.Label)
	}
	if r.Cores != "" {
		fmt.Fprintf(w, "\n  cores: %s", r.Cores)
	}
	tpm, nopm, p99, per := "TPM", "NOPM", "NO p99 ms", 1.0
	if r.Workload != "" { // a pgbench workload: its figure of merit per second
		fmt.Fprintf(w, "\n  workload %s (figure of merit: %s's transactions per second)", r.Workload, r.Figure)
		tpm, nopm, p99, per = "TPS", "FIG TPS", "p99 ms", 60
	}
	fmt.Fprintf(w, "\n  %-14s %-9s %9s %9s %10s  %s\n", "INSTANCE PHASE", "STATUS", tpm, nopm, p99, "RUN")
	for _, p := range r.Points {
		if !p.Measured() {
			fmt.Fprintf(w, "  %-14s %-9s %s\n", p.Value, p.Status, p.Reason)
			continue
		}
		fmt.Fprintf(w, "  %-14s %-9s %9.0f %9.0f %10.2f  %s\n", p.Value, p.Status, p.TPM/per, p.NOPM/per, p.NewOrderP99Ms, p.RunID)
	}
	for _, b := range r.Backups {
		fmt.Fprintf(w, "  backups on n%d:", b.Instance)
		for i, c := range b.Cycles {
			fmt.Fprintf(w, " cycle %d %.1f s (%.0f MB/s)", i+1, c.BackupSeconds, c.BackupMBps)
		}
		if b.Error != "" {
			fmt.Fprintf(w, " — %s", b.Error)
		}
		if b.ProbeID != "" {
			fmt.Fprintf(w, " · probe %s", b.ProbeID)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  report: rightsize report --sweep %s\n", r.ID)
}

// reportNeighbour loads what the report's neighbour section adds to the
// sweep: how the cores were given out and the backup cycles.
func reportNeighbour(ctx context.Context, st *store.Store, id string) (*report.Neighbour, error) {
	r, err := scenario.LoadNeighbour(ctx, st, id)
	if err != nil {
		return nil, err
	}
	n := &report.Neighbour{Cores: r.Cores}
	for _, b := range r.Backups {
		n.Backups = append(n.Backups, report.NeighbourBackup{Instance: b.Instance, ProbeID: b.ProbeID, Cycles: b.Cycles})
	}
	return n, nil
}
