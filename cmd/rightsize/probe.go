package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/probe/cpu"
	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/store"
)

func newProbeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Characterise the hardware: storage I/O, single-thread CPU, backup and restore",
	}
	cmd.AddCommand(newProbeStorageCmd(), newProbeCPUCmd(), newProbeBackupCmd())
	return cmd
}

// storageProbeResult is what a storage probe stores (Probe.Result).
type storageProbeResult struct {
	Path   string              `json:"path"`
	Preset string              `json:"preset"`
	Engine string              `json:"engine"`
	Size   int64               `json:"size_bytes"`
	Jobs   []storage.JobResult `json:"jobs"`
	// Partial is set when the probe was interrupted (Ctrl-C): Jobs holds
	// the jobs completed before, the last one possibly cut short.
	Partial bool `json:"partial,omitempty"`
	// IOLimit is the cgroup I/O limit the probe ran under (--io-limit).
	IOLimit *cgroup.Report `json:"io_limit,omitempty"`
}

// storageJobs checks the storage probe's flags and returns its jobs. Every
// problem is bad input (exit 2), found before anything is created.
func storageJobs(preset string, duration time.Duration, custom storage.Job, bs string, durationSet bool) ([]storage.Job, error) {
	if durationSet && duration <= 0 {
		return nil, badInput(fmt.Errorf("--duration %v: want a positive duration like 30s (omit it for the preset's %v)", duration, storage.DefaultDuration))
	}
	if preset == "custom" {
		b, err := units.ParseSize(bs)
		if err != nil {
			return nil, badInput(fmt.Errorf("--bs: %w", err))
		}
		custom.Name, custom.BlockSize, custom.Direct, custom.Duration = "custom", int(b), true, duration
		return []storage.Job{custom}, nil
	}
	if !slices.Contains(storage.PresetNames(), strings.ToLower(strings.TrimSpace(preset))) {
		return nil, badInput(fmt.Errorf("unknown storage preset %q (valid: %s, custom)", preset, strings.Join(storage.PresetNames(), ", ")))
	}
	jobs, err := storage.Preset(preset, duration)
	if err != nil {
		return nil, badInput(err)
	}
	return jobs, nil
}

func newProbeStorageCmd() *cobra.Command {
	var path, preset, size, engine, builtinIO, label, bs, ioLimit string
	var duration time.Duration
	var readPct, threads, depth, fsyncEvery int
	var sequential, asJSON bool
	cmd := &cobra.Command{
		Use:   "storage",
		Short: "Measure IOPS, MB/s and the latency percentile table of a directory's storage",
		Long:  probeStorageLong,
		Example: `  rightsize probe storage --path /data --preset sqlserver --size 20G
  rightsize probe storage --path /data --preset hci --duration 10s --json
  rightsize probe storage --path /log --preset custom --bs 64k --read-pct 0 --sequential --threads 1 --depth 1 --fsync-every 1`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if path == "" {
				return badInput(errors.New("--path is required: the directory whose storage to probe"))
			}
			sz, err := units.ParseSize(size)
			if err != nil {
				return badInput(fmt.Errorf("--size %w", err))
			}
			jobs, err := storageJobs(preset, duration, storage.Job{ReadPct: readPct, Random: !sequential, Threads: threads,
				QueueDepth: depth, FsyncEvery: fsyncEvery}, bs, cmd.Flags().Changed("duration"))
			if err != nil {
				return err
			}
			eng, err := storage.ResolveEngine(engine)
			if err != nil {
				return badInput(err)
			}
			if builtinIO != "auto" && !slices.Contains(storage.BuiltinIONames(), builtinIO) {
				return badInput(fmt.Errorf("--builtin-io %q: want auto, %s", builtinIO, strings.Join(storage.BuiltinIONames(), ", ")))
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			progress := func(job string) {
				if !asJSON {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", time.Now().Format("15:04:05"), job)
				}
			}
			sp := storageProbe{path: path, preset: preset, engine: eng, builtinIO: builtinIO, ioLimit: ioLimit, label: label, size: sz, jobs: jobs}
			p, res, runErr := sp.run(cmd, st, progress)
			if p == nil {
				return runErr
			}
			if err := printStorageProbe(cmd.OutOrStdout(), p.ID, res, asJSON); err != nil {
				return err
			}
			if runErr != nil {
				return fmt.Errorf("storage probe interrupted: %w (the jobs above are stored, the last one marked partial; the test file was removed)", runErr)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&path, "path", "", "directory on the storage to probe (the test file goes there)")
	f.StringVar(&preset, "preset", "sqlserver", "sqlserver, hci, log or custom")
	f.StringVar(&size, "size", "1G", "test file size (e.g. 20G); larger than the storage's caches for honest numbers")
	f.DurationVar(&duration, "duration", storage.DefaultDuration, "duration of each job")
	f.StringVar(&engine, "engine", "auto", "auto (fio when installed), fio or builtin")
	f.StringVar(&builtinIO, "builtin-io", "auto", "builtin engine's I/O interface: auto (the best available), "+strings.Join(storage.BuiltinIONames(), ", "))
	f.StringVar(&label, "label", "", "name this probe (reports accept it)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&bs, "bs", "8k", "custom: block size")
	f.IntVar(&readPct, "read-pct", 75, "custom: percentage of reads")
	f.BoolVar(&sequential, "sequential", false, "custom: sequential instead of random offsets")
	f.IntVar(&threads, "threads", 8, "custom: threads")
	f.IntVar(&depth, "depth", 4, "custom: outstanding I/Os per thread")
	f.IntVar(&fsyncEvery, "fsync-every", 0, "custom: fsync after every N writes (0 = never)")
	f.StringVar(&ioLimit, "io-limit", "", "run the probe inside a cgroup with this I/O limit on --path's device (riops=N,wiops=N,rbps=SIZE,wbps=SIZE), as a managed server's --io-limit: shows what the limit really does")
	return cmd
}

// probeStorageLong is rightsize probe storage's help text.
const probeStorageLong = `probe storage runs the I/O patterns database storage studies use, with fio
when it is installed (--engine fio) or a built-in Go engine (O_DIRECT,
HdrHistogram latencies) that keeps threads x outstanding I/Os in flight as
fio does: io_uring on Linux, Linux native AIO where the kernel refuses
io_uring, one goroutine per outstanding I/O elsewhere (--builtin-io forces
one). Each job's result names the interface that ran, why a better one was
not used, and the engine's CPU time per I/O. Presets:
  sqlserver  8 KiB random, 25 % writes, 8 threads x 4 outstanding, direct, 30 s
             (diskspd -b8K -o4 -t8 -r -w25 -h)
  hci        4k..256k at 70 % read random, then sequential 128k read and write
  log        8k..64k sequential writes with an fsync after each, queue depth 1
  custom     from --bs, --read-pct, --sequential, --threads, --depth, --fsync-every
The test file is created in --path and always removed afterwards.`

// storeProbe saves a probe result.
func storeProbe(cmd *cobra.Command, kind, label, host string, result any) (string, error) {
	st, err := openStore(cmd)
	if err != nil {
		return "", err
	}
	defer st.Close()
	raw, err := json.Marshal(result)
	if err != nil {
		return "", err
	}
	if host == "" {
		host, _ = os.Hostname()
	}
	p := &store.Probe{Kind: kind, Label: label, Host: host, Result: raw}
	if err := st.AddProbe(context.WithoutCancel(cmd.Context()), p); err != nil {
		return "", err
	}
	return p.ID, nil
}

func printJSON(cmd *cobra.Command, v any) error { return writeJSON(cmd.OutOrStdout(), v) }

func newProbeCPUCmd() *cobra.Command {
	var tf targetFlags
	var iterations int64
	var runs int
	var label string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "cpu",
		Short: "Single-thread CPU test: a server-side arithmetic loop, timed in ms (lower is faster)",
		Long: `probe cpu runs the single-thread test SQL Server practitioners use: a loop of
arithmetic inside the database (PL/pgSQL, T-SQL or a MySQL procedure) for a
fixed number of iterations, timed by the server in milliseconds, best and
median of --runs; and the same loop in Go on the client for comparison.`,
		Example: `  rightsize probe cpu
  rightsize probe cpu --target postgres://postgres:secret@db1/tpcc --iterations 5000000 --label db1`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if iterations < 1 || runs < 1 {
				return badInput(errors.New("--iterations and --runs must be at least 1"))
			}
			t, err := tf.open(cmd.Context(), true, 2)
			if err != nil {
				return err
			}
			defer t.Close()
			r, err := cpu.Run(cmd.Context(), t.DB, t.Registered.CPUProbe, iterations, runs)
			if errors.Is(err, cpu.ErrNotSupported) {
				return badInput(err)
			}
			if err != nil {
				return err
			}
			id, err := storeProbe(cmd, store.ProbeCPU, label, r.Host, r)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd, map[string]any{"probe_id": id, "result": r})
			}
			cpu.FormatText(cmd.OutOrStdout(), r)
			fmt.Fprintf(cmd.OutOrStdout(), "stored as probe %s\n", id)
			return nil
		},
	}
	tf.register(cmd)
	cmd.Flags().Int64Var(&iterations, "iterations", cpu.DefaultIterations, "loop iterations")
	cmd.Flags().IntVar(&runs, "runs", cpu.DefaultRuns, "timed runs (best and median are reported)")
	cmd.Flags().StringVar(&label, "label", "", "name this probe")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newProbeBackupCmd() *cobra.Command {
	var tf targetFlags
	var to, label, method string
	var cycles int
	var every time.Duration
	var keep, inPlace, asJSON bool
	cmd := &cobra.Command{
		Use:   "backup",
		Short: "Time a full backup and restore of the benchmark database with the engine's own tools",
		Long: `probe backup takes a full backup of the benchmark database with the engine's
own tools (PostgreSQL: pg_basebackup; MySQL/MariaDB: mariadb-backup or
mysqldump; SQL Server: BACKUP DATABASE), restores it (PostgreSQL: a fresh data
directory that is started and checked) and reports duration, MB/s and the disk
latency seen meanwhile. --cycles N --every D repeats it, a cycle starting
every D (the noisy-neighbour scenario uses --every 100s).`,
		Example: `  rightsize probe backup
  rightsize probe backup --to /backup --cycles 3
  rightsize probe backup --target postgres://postgres:secret@db1/tpcc --cycles 10 --every 100s --pg-bin /usr/lib/postgresql/15/bin`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cycles < 1 || every < 0 {
				return badInput(errors.New("--cycles must be at least 1 and --every not negative"))
			}
			ctx := cmd.Context()
			t, err := tf.open(ctx, false, 2)
			if err != nil {
				return err
			}
			defer t.Close()
			spec, err := t.BackupSpec(ctx)
			if err != nil {
				return badInput(err)
			}
			progress := func(l string) {
				if !asJSON {
					fmt.Fprintln(cmd.ErrOrStderr(), l)
				}
			}
			r, runErr := backup.Run(ctx, spec, backup.Options{Dir: to, Cycles: cycles, Every: every, BinDir: tf.pgBin, Keep: keep,
				RestoreInPlace: inPlace, Method: method}, progress)
			if len(r.Cycles) == 0 && runErr != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("backup probe interrupted before a cycle completed; nothing was left behind")
				}
				return badInput(runErr)
			}
			id, err := storeProbe(cmd, store.ProbeBackup, label, r.Host, r)
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(cmd, map[string]any{"probe_id": id, "result": r}); err != nil {
					return err
				}
			} else {
				backup.FormatText(cmd.OutOrStdout(), r)
				fmt.Fprintf(cmd.OutOrStdout(), "stored as probe %s\n", id)
			}
			if runErr != nil {
				return fmt.Errorf("backup probe: %w (the completed cycles are stored, marked partial)", runErr)
			}
			return nil
		},
	}
	tf.register(cmd)
	f := cmd.Flags()
	f.StringVar(&to, "to", "", "directory for the backup (default: beside the data directory)")
	f.IntVar(&cycles, "cycles", 1, "backup+restore cycles")
	f.DurationVar(&every, "every", 0, "start a cycle every D (0: back to back)")
	f.BoolVar(&keep, "keep", false, "keep the last backup")
	f.BoolVar(&inPlace, "in-place", false, "restore by starting a server on the backup itself (times only recovery)")
	f.StringVar(&method, "method", "", "force a method: pg_basebackup, mariadb-backup, mysqldump, mssql")
	f.StringVar(&label, "label", "", "name this probe")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// storageProbe is one storage probe to run and store.
type storageProbe struct {
	path, preset, engine, builtinIO, ioLimit, label string
	size                                            int64
	jobs                                            []storage.Job
}

// run measures the jobs (inside the I/O limit, when given) and stores
// what was measured, also after Ctrl-C (marked partial). With no stored
// probe the error says why.
func (sp storageProbe) run(cmd *cobra.Command, st *store.Store, progress func(string)) (*store.Probe, storageProbeResult, error) {
	limit, leave, err := joinIOLimit(cmd, sp.ioLimit, sp.path)
	if err != nil {
		return nil, storageProbeResult{}, err
	}
	results, runErr := storage.Run(cmd.Context(), storage.Options{Path: sp.path, Size: sp.size, Engine: sp.engine, BuiltinIO: sp.builtinIO}, sp.jobs, progress)
	leave()
	if runErr != nil && len(results) == 0 {
		if cmd.Context().Err() != nil {
			return nil, storageProbeResult{}, fmt.Errorf("storage probe interrupted before any result; the test file was removed")
		}
		return nil, storageProbeResult{}, badInput(runErr)
	}
	res := storageProbeResult{Path: sp.path, Preset: sp.preset, Engine: sp.engine, Size: sp.size, Jobs: results, Partial: runErr != nil, IOLimit: limit}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, res, err
	}
	host, _ := os.Hostname()
	p := &store.Probe{Kind: store.ProbeStorage, Label: sp.label, Host: host, Result: raw}
	// Stored even after Ctrl-C: what was measured is kept, marked partial.
	if err := st.AddProbe(context.WithoutCancel(cmd.Context()), p); err != nil {
		return nil, res, err
	}
	return p, res, runErr
}

// printStorageProbe prints a stored storage probe's result as JSON or as the
// latency percentile table.
func printStorageProbe(w io.Writer, id string, res storageProbeResult, asJSON bool) error {
	if asJSON {
		return writeJSON(w, map[string]any{"probe_id": id, "result": res})
	}
	storage.FormatTable(w, res.Jobs)
	fmt.Fprintf(w, "stored as probe %s\n", id)
	return nil
}
