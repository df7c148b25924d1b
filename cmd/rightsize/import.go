package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/importer"
	"github.com/rightsize/rightsize/store"
)

// newImportCmd is "rightsize import": bring other tools' results into the
// results store.
func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import other tools' results (HammerDB) into the results store",
		Long: `Import results measured by other tools into the results store, where
report and compare put them next to rightsize's own runs.`,
	}
	cmd.AddCommand(newImportHammerDBCmd())
	return cmd
}

func newImportHammerDBCmd() *cobra.Command {
	var opt importer.Options
	cmd := &cobra.Command{
		Use:   "hammerdb FILE...",
		Short: "Import HammerDB TPROC-C results: hammerdb.log, CLI output, autopilot logs, xtprof time profiles",
		Long:  importHammerDBLong,
		Example: `  rightsize import hammerdb hammerdb.log
  rightsize import hammerdb run.log /tmp/hdbxtprofile.log --label "HDD/16 cores"
  rightsize report "HDD/16 cores" baseline`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput(fmt.Errorf("give the HammerDB output files to import: rightsize import hammerdb hammerdb.log [hdbxtprofile.log]"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range args {
				if _, err := os.Stat(f); err != nil {
					return badInput(err)
				}
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			got, err := importer.ImportHammerDB(cmd.Context(), st, args, opt)
			if err != nil {
				var pe *importer.ParseError
				if errors.As(err, &pe) {
					return badInput(err)
				}
				return err
			}
			w := cmd.OutOrStdout()
			for _, im := range got {
				if im.Attached {
					fmt.Fprintf(w, "attached %s to run %s, label %q: xtprof latencies for users %s\n", im.File, im.Run.ID, im.Run.Label, stepUsers(im.Steps))
					continue
				}
				from := im.File
				if len(im.Profiles) > 0 {
					from += " + " + strings.Join(im.Profiles, ", ")
				}
				withLat := 0
				for _, s := range im.Steps {
					if len(s.Txn) > 0 {
						withLat++
					}
				}
				kind := "run"
				if im.LatencyOnly {
					kind = "latency-only run (no TPM)"
				}
				fmt.Fprintf(w, "imported %s as %s %s, label %q: %d steps (users %s), %d with xtprof latencies\n",
					from, kind, im.Run.ID, im.Run.Label, len(im.Steps), usersList(im.Run.Users, 20), withLat)
			}
			if len(got) > 0 {
				fmt.Fprintf(w, "see: rightsize report %q\n", got[len(got)-1].Run.Label)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opt.Label, "label", "", `the runs' label (default "hammerdb:" and the file's base name)`)
	cmd.Flags().BoolVar(&opt.Replace, "replace", false, "import a file imported before again, deleting the runs it made")
	return cmd
}

// importHammerDBLong is rightsize import hammerdb's help text.
const importHammerDBLong = `Import the results of HammerDB timed TPROC-C (TPC-C) runs. FILE is a
hammerdb.log, the CLI's output, or the log of an autopilot sequence: every
"TEST RESULT : System achieved N NOPM from M <database> TPM" line becomes a
step, with its number of active virtual users (a users count met again is
the next repeat of that step). When the time profiler (xtprof) was on, its
summary of all virtual users gives each step its per-transaction p50, p95
and p99 latency: printed in the log, or in hdbxtprofile.log given right
after the log it belongs to. An hdbxtprofile.log given alone completes the
latest imported HammerDB run with a step of the same virtual users, or,
when no imported run has one, becomes a latency-only run.

Each log becomes one run, with source "hammerdb" and label --label (with
several logs, --label:BASE), or "hammerdb:BASE", BASE being the file's base
name. A file imported before is refused; --replace deletes the runs it made
and imports it again. Nothing is stored unless every file can be read.`

// stepUsers lists the steps' users counts ("4, 8").
func stepUsers(steps []store.Step) string {
	var us []string
	for _, s := range steps {
		us = append(us, strconv.Itoa(s.Users))
	}
	return strings.Join(us, ", ")
}
