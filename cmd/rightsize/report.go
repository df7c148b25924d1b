package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/store"
)

// newReportCmd is "rightsize report [RUN ...]": one offline HTML file with
// the charts and tables of one or several runs, side by side.
func newReportCmd() *cobra.Command {
	var out, title string
	cmd := &cobra.Command{
		Use:   "report [RUN ...]",
		Short: "Write one offline HTML file with the charts and tables of runs, compared side by side",
		Long: `Write one self-contained HTML file (it opens offline: the chart library is
embedded) with, for each RUN: a summary, TPM/NOPM/TPM per user by virtual
users, CPU and disk by virtual users, transaction latency percentiles,
throughput and latency over time, and the environment and settings, with
the settings that differ between runs highlighted.

RUN is a run id, a label (the latest run with that label), or a unique
prefix of a run id; without RUN, the latest run. Several RUNs are compared
side by side, in the order given.`,
		Example: `  rightsize report                                  # the latest run, to report.html
  rightsize report baseline "8 cores" -o cores.html
  rightsize report hammerdb:hammerdb.log baseline   # an imported HammerDB run next to a measured one`,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openResults(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx := cmd.Context()
			var ids []string
			for _, a := range args {
				id, err := resolveRun(ctx, st, a)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			runs, err := report.Load(ctx, st, ids...)
			if err != nil {
				if len(ids) == 0 || errors.Is(err, store.ErrNotFound) {
					return badInput(err)
				}
				return err
			}
			opts := report.Options{Title: title, Version: version}
			if out == "-" {
				return report.HTML(cmd.OutOrStdout(), runs, opts)
			}
			if err := writeFileAtomic(out, func(f *os.File) error { return report.HTML(f, runs, opts) }); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %s (open it in a browser; it needs no network)\n", out,
				strings.Join(report.Labels(runs), " vs "))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "report.html", `the HTML file to write ("-" for standard output)`)
	cmd.Flags().StringVar(&title, "title", "", `the report's title (default "rightsize report")`)
	return cmd
}

// writeFileAtomic writes path through a temporary file in the same
// directory, renamed into place once complete: an interrupted write never
// leaves a truncated file.
func writeFileAtomic(path string, fill func(*os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return badInput(fmt.Errorf("write %s: %w", path, err))
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}
