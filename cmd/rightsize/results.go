package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// newResultsCmd is "rightsize results": list, show, export and delete the
// runs of the results store.
func newResultsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "results",
		Short: "List, show, export and delete the runs in the results store",
		Long: `List, show, export and delete the runs in the results store (--store, or
$RIGHTSIZE_STORE, or ./rightsize.db). RUN is a run id, a label (the latest
run with that label), or a unique prefix of a run id.`,
		Example: `  rightsize results list
  rightsize results show baseline
  rightsize results export 20250314-092653-a1b2c3 --format csv -o baseline-csv
  rightsize results delete old-test --store postgres://rs:secret@db/results`,
	}
	cmd.AddCommand(newResultsListCmd(), newResultsShowCmd(), newResultsExportCmd(), newResultsDeleteCmd(), newResultsImportCmd())
	return cmd
}

// storeLocation returns the --store flag when it is defined and set, else
// "" (the store then falls back to $RIGHTSIZE_STORE or ./rightsize.db).
func storeLocation(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("store"); f != nil && f.Changed {
		return f.Value.String()
	}
	if f := cmd.InheritedFlags().Lookup("store"); f != nil && f.Changed {
		return f.Value.String()
	}
	return ""
}

// openResults opens the store for the results commands. Readers never
// create a store; the errors are bad input (wrong --store, corrupt file,
// store of a newer rightsize).
func openResults(cmd *cobra.Command) (*store.Store, error) {
	st, err := store.OpenExisting(cmd.Context(), storeLocation(cmd))
	if err != nil {
		return nil, badInput(err)
	}
	reportRecovered(cmd.ErrOrStderr(), st)
	return st, nil
}

// openRun opens the store for reading and resolves RUN in it; the caller
// closes the store.
func openRun(cmd *cobra.Command, key string) (*store.Store, string, error) {
	return openStored(cmd, key, resolveRun)
}

// openStored opens the store for reading and finds key in it (a run or a
// probe) with find; the caller closes the store.
func openStored[T any](cmd *cobra.Command, key string, find func(context.Context, *store.Store, string) (T, error)) (*store.Store, T, error) {
	var zero T
	st, err := openResults(cmd)
	if err != nil {
		return nil, zero, err
	}
	v, err := find(cmd.Context(), st, key)
	if err != nil {
		st.Close()
		return nil, zero, err
	}
	return st, v, nil
}

// onStored is the RunE of a command on one stored run or probe (its only
// argument): do runs with the store open and what find found.
func onStored[T any](find func(context.Context, *store.Store, string) (T, error),
	do func(cmd *cobra.Command, st *store.Store, v T) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		st, v, err := openStored(cmd, args[0], find)
		if err != nil {
			return err
		}
		defer st.Close()
		return do(cmd, st, v)
	}
}

// openListing opens the store for a list command. Where there is no store
// yet it prints the empty listing ("[]" with --json, else "no WHAT yet:
// why") and returns no store and no error: the command is done.
func openListing(cmd *cobra.Command, what string, asJSON bool) (*store.Store, error) {
	st, err := openResults(cmd)
	if !errors.Is(err, store.ErrNoStore) {
		return st, err
	}
	if asJSON {
		fmt.Fprintln(cmd.OutOrStdout(), "[]")
	} else {
		fmt.Fprintf(cmd.OutOrStdout(), "no %s yet: %v\n", what, errors.Unwrap(err))
	}
	return nil, nil
}

// writeListing prints the items of a list command: a JSON array with
// --json, else the line empty when there are none, else a table of header
// and one row per item (row writes item i).
func writeListing[T any](w io.Writer, asJSON bool, items []T, empty, header string, row func(tw io.Writer, i int)) error {
	if asJSON {
		if items == nil {
			items = []T{}
		}
		return writeJSON(w, items)
	}
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, empty)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for i := range items {
		row(tw, i)
	}
	return tw.Flush()
}

// resolveRun turns RUN into a run id; unknown or ambiguous is bad input.
func resolveRun(ctx context.Context, st *store.Store, key string) (string, error) {
	id, err := st.Resolve(ctx, key)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return "", badInput(fmt.Errorf("%w (see: rightsize results list)", err))
		}
		if strings.Contains(err.Error(), "ambiguous") || strings.Contains(err.Error(), "empty") {
			return "", badInput(err)
		}
		return "", err
	}
	return id, nil
}

// oneRun checks that exactly one RUN is given.
func oneRun(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return badInput(fmt.Errorf("give one RUN: a run id or a label (see: rightsize results list)"))
	}
	return nil
}

func newResultsListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openListing(cmd, "runs", asJSON)
			if st == nil {
				return err
			}
			defer st.Close()
			runs, err := analysis.ListRunSummaries(cmd.Context(), st)
			if err != nil {
				return err
			}
			return writeListing(cmd.OutOrStdout(), asJSON, runs, fmt.Sprintf("no runs in %s", st.Location()),
				"ID\tLABEL\tSTATUS\tENGINE\tWH\tUSERS\tREPEATS\tSTEPS\tPEAK TPM\tPEAK NOPM\tSTARTED", func(tw io.Writer, i int) {
					r := runs[i]
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%.0f\t%.0f\t%s\n", r.ID, dash(r.Label), r.Status, dash(r.Engine),
						r.Warehouses, usersList(r.Users, 8), r.Repeats, r.Steps, r.Figures.PeakTPM, r.Figures.PeakNOPM, localTime(r.StartedAt))
				})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array instead of the table")
	return cmd
}

func newResultsShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: configuration, environment, steps aggregated across repeats, latencies",
		Args:  oneRun,
		RunE: onStored(resolveRun, func(cmd *cobra.Command, st *store.Store, id string) error {
			if asJSON {
				return writeDocument(cmd, st, id)
			}
			r, steps, err := st.LoadRun(cmd.Context(), id)
			if err != nil {
				return err
			}
			if err := printRun(cmd.OutOrStdout(), r, steps); err != nil {
				return err
			}
			if err := printDemands(cmd.OutOrStdout(), scenario.StepDemands(r, steps)); err != nil {
				return err
			}
			return writeWorkers(cmd.Context(), cmd.OutOrStdout(), st, id)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole run (every step and raw sample) as one JSON document")
	return cmd
}

func newResultsExportCmd() *cobra.Command {
	var format, dir string
	cmd := &cobra.Command{
		Use:   "export RUN",
		Short: "Export a run as CSV files for a spreadsheet, or as one JSON document",
		Long: `Export a run. CSV (RFC 4180, one header row) writes steps.csv, transactions.csv,
timeseries.csv and host_samples.csv into DIR (default ./rightsize-RUNID).
JSON writes the whole run as one document (the one results show --json
prints) to standard output, or with -o DIR to DIR/RUNID.json.`,
		Example: `  rightsize results export ssd-16cores -o out/                 # out/steps.csv, transactions.csv, ...
  rightsize results export ssd-16cores --format json > run.json
  rightsize results export ssd-16cores --format json -o out/   # out/RUNID.json`,
		Args: oneRun,
		RunE: func(cmd *cobra.Command, args []string) error {
			format = strings.ToLower(strings.TrimSpace(format))
			if format != analysis.FormatCSV && format != analysis.FormatJSON {
				return badInput(fmt.Errorf("--format %q: want csv or json", format))
			}
			if format == analysis.FormatCSV && dir == "-" {
				return badInput(errors.New("-o -: CSV is several files; give a directory (-o DIR), or --format json for standard output"))
			}
			st, id, err := openRun(cmd, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			if format == analysis.FormatJSON && (dir == "" || dir == "-") {
				return writeDocument(cmd, st, id)
			}
			if dir == "" {
				dir = "rightsize-" + id
			}
			files, err := analysis.Export(cmd.Context(), st, id, format, dir)
			if err != nil {
				return badInput(err)
			}
			for _, f := range files {
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", analysis.FormatCSV, "csv or json")
	cmd.Flags().StringVarP(&dir, "output", "o", "", `output directory (created if missing); "-" or none with --format json: standard output`)
	return cmd
}

func newResultsDeleteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete RUN",
		Short: "Delete a run with all its steps and samples",
		Args:  oneRun,
		RunE: onStored(resolveRun, func(cmd *cobra.Command, st *store.Store, id string) error {
			if err := st.DeleteRun(cmd.Context(), id); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return badInput(err)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted run %s\n", id)
			return nil
		}),
	}
	return cmd
}

// writeJSON writes v as indented JSON: what every --json prints.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// usersList prints a users sequence, eliding the middle of long ones.
func usersList(users []int, max int) string {
	s := make([]string, len(users))
	for i, u := range users {
		s[i] = strconv.Itoa(u)
	}
	if len(s) > max {
		return strings.Join(s[:max-2], ",") + ",…," + s[len(s)-1]
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

func localTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// printRun writes the human-readable view of a run.
func printRun(w io.Writer, r *store.Run, steps []store.Step) error {
	if err := printRunHeader(w, r); err != nil {
		return err
	}
	printMap(w, "environment", r.Env, "")
	printMap(w, "command line", r.Flags, "--")

	if len(steps) == 0 {
		fmt.Fprintln(w, "\nno steps stored")
		return nil
	}
	aggs := analysis.Aggregate(steps)
	fig := analysis.RunFigures(aggs)
	fmt.Fprintf(w, "\npeak TPM %.0f at %d users · peak NOPM %.0f at %d users", fig.PeakTPM, fig.PeakTPMUsers, fig.PeakNOPM, fig.PeakNOPMUsers)
	if fig.Steps > 1 {
		fmt.Fprintf(w, " · average over all steps TPM %.0f · NOPM %.0f", fig.AvgTPM, fig.AvgNOPM)
	}
	fmt.Fprintln(w)
	if fig.PeakDriverCPUPct > 0 {
		fmt.Fprintf(w, "peak driver CPU %.1f %% of one core at %d users (%.1f µs/txn)\n", fig.PeakDriverCPUPct, fig.PeakDriverCPUUsers, fig.PeakDriverCPUUsPerTxn)
	}
	report.WriteWorkload(w, *r, steps)
	report.WriteStepThroughput(w, r, aggs)
	if err := printStepsMeasured(w, steps); err != nil {
		return err
	}
	report.WriteTxnLatency(w, aggs)
	report.WriteValidity(w, *r, steps)
	report.WriteStepEndings(w, *r, steps)
	return nil
}

// printRunHeader prints the run's identity, target, workload, steps and time.
func printRunHeader(w io.Writer, r *store.Run) error {
	title := "run " + r.ID
	if r.Label != "" {
		title += "  \"" + r.Label + "\""
	}
	fmt.Fprintf(w, "%s  (%s)\n", title, strings.ToUpper(r.Status))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	kv := func(k, format string, args ...any) { fmt.Fprintf(tw, "  %s\t%s\n", k, fmt.Sprintf(format, args...)) }
	if r.Source != store.SourceRightsize {
		kv("source", "%s", r.Source)
	}
	kv("target", "%s", joinNonEmpty(" · ", r.Target, r.Engine, r.EngineVersion))
	if name, scripts := r.Workload(); name != "" {
		kv("workload", "%s: %s · %s mode · seed %d", name, scripts, dash(r.Mode), r.Seed)
	} else {
		kv("workload", "TPC-C · %d warehouses · %s mode · keying/think %s · seed %d", r.Warehouses, dash(r.Mode), onOffStr(r.KeyingThinking), r.Seed)
	}
	kv("steps", "users %s · ramp-up %s · measured %s · %d repeat(s)", usersList(r.Users, 20), r.Rampup, r.Duration, r.Repeats)
	when := localTime(r.StartedAt)
	if !r.EndedAt.IsZero() {
		when += " → " + localTime(r.EndedAt) + " (" + r.EndedAt.Sub(r.StartedAt).Round(time.Second).String() + ")"
	}
	kv("time", "%s", when)
	if r.Note != "" {
		kv("note", "%s", r.Note)
	}
	if s := r.CapsNotApplied(); s != "" {
		kv("caps", "%s", s)
	}
	if s := r.Prewarmed(); s != "" {
		kv("cache", "%s before the first ramp-up", s)
	}
	return tw.Flush()
}

// printStepsMeasured prints every measured step as stored.
func printStepsMeasured(w io.Writer, steps []store.Step) error {
	fmt.Fprintln(w, "\nsteps as measured")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"repeat", "users", figures.TPM.Head, figures.NOPM.Head, analysis.ColMeasuredSeconds.Head, figures.DBTPM.Head,
		figures.DBBufferHit.Head + " %", figures.SkippedDeliveries.Head, figures.Reconnects.Head, "started", ""}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, s := range steps {
		mark := ""
		if s.Partial {
			mark = "  PARTIAL"
		}
		fmt.Fprintf(tw, "%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%d\t%d\t%s\t%s\n", s.Repeat, s.Users, s.TPM, s.NOPM, s.Measured().Seconds(),
			s.DB.TPM, s.DB.BufferHitPct, s.SkippedDeliveries, s.Reconnects, localTime(s.Start), mark)
	}
	return tw.Flush()
}

func printMap(w io.Writer, title string, m map[string]string, prefix string) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(tw, "  %s%s\t%s\n", prefix, k, m[k])
	}
	tw.Flush()
}

func onOffStr(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, sep)
}

// writeDocument prints run id's JSON document (run, steps, aggregates,
// figures, workers).
func writeDocument(cmd *cobra.Command, st *store.Store, id string) error {
	doc, err := analysis.LoadDocument(cmd.Context(), st, id)
	if err != nil {
		return err
	}
	return writeJSON(cmd.OutOrStdout(), runDocument{Document: doc, Demands: scenario.StepDemands(doc.Run, doc.Steps)})
}
