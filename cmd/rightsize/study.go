package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/plan"
)

// newStudyCmd is "rightsize study validate|init|run": a whole study from
// one plan file.
func newStudyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "A whole study from one plan file: validate it, write an example, run it",
		Long: `A study plan (YAML) describes a whole study: configurations (managed
servers with caps and versions, or external servers by DSN with the password
in an environment variable), the storage probe, the build, the autopilot,
sweeps, the noisy-neighbour scenario, backups, the cost model, fit and the
report. See examples/ and rightsize study init.`,
	}
	cmd.AddCommand(newStudyValidateCmd(), newStudyInitCmd(), newStudyRunCmd())
	return cmd
}

func newStudyValidateCmd() *cobra.Command {
	var maxDuration time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate PLAN.yaml",
		Short: "Check a plan: every problem with its line and column, and the estimated duration",
		Long: `Check a study plan and the cost file it names: unknown fields, values that
cannot be applied, configurations that do not exist, each printed as
FILE:LINE:COLUMN: FIELD: PROBLEM. Then print the estimated duration from the
plan's own durations (ramp-ups and steps × repeats per configuration and
sweep value, probes, backup intervals, the neighbour's phases, and at most
every fit candidate); building databases and starting servers are not
counted. --max-duration refuses a plan estimated longer. Exit code 2 when
the plan has a problem.`,
		Example: `  rightsize study validate examples/fewer-cores-faster-storage.yaml
  rightsize study validate study.yaml --max-duration 15m`,
		Args: exactArgs(1, "give one PLAN.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlan(cmd.ErrOrStderr(), args[0])
			if err != nil {
				return err
			}
			e := p.Estimate()
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(e); err != nil {
					return err
				}
			} else {
				printEstimate(cmd.OutOrStdout(), p, e)
			}
			if maxDuration > 0 && e.Total > maxDuration {
				line, col := p.DurationPos()
				return badInput(&yamlfile.Error{File: p.Path, Line: line, Column: col, Field: "autopilot.duration",
					Msg: fmt.Sprintf("the plan is estimated at %s, more than --max-duration %s: shorten the durations, steps or values", e.Total, maxDuration)})
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&maxDuration, "max-duration", 0, "refuse a plan estimated longer than this (e.g. 15m)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the estimate as JSON")
	return cmd
}

// loadPlan loads a plan; every problem is printed on its own line to
// errOut, and the error (bad input) counts them.
func loadPlan(errOut io.Writer, path string) (*plan.Plan, error) {
	p, err := plan.Load(path)
	if err == nil {
		return p, nil
	}
	var es yamlfile.Errors
	if errors.As(err, &es) && len(es) > 1 {
		for _, e := range es {
			fmt.Fprintln(errOut, e)
		}
		return nil, badInput(fmt.Errorf("%s: %d problems (listed above)", path, len(es)))
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, badInput(fmt.Errorf("no plan file %s (rightsize study init writes an example)", path))
	}
	return nil, costInputError(err)
}

func printEstimate(w io.Writer, p *plan.Plan, e plan.Estimate) {
	fmt.Fprintf(w, "%s: valid: study %q, %s", p.Path, p.Name, plural(len(p.Configurations), "configuration"))
	if len(p.Sweeps) > 0 {
		fmt.Fprintf(w, ", %s", plural(len(p.Sweeps), "sweep"))
	}
	if p.Neighbour != nil {
		fmt.Fprint(w, ", noisy neighbour")
	}
	if p.Fit != nil {
		fmt.Fprint(w, ", fit")
	}
	if p.CostModel != nil {
		fmt.Fprintf(w, ", cost model %s", p.CostPath())
	}
	fmt.Fprintln(w)
	t := &alignedRows{}
	for _, part := range e.Parts {
		d := part.Duration.String()
		if part.UpTo {
			d = "up to " + d
		}
		t.add("  "+part.What, d)
	}
	t.add("estimated duration", e.Total.String())
	t.write(w)
	fmt.Fprintln(w, "(building the database and starting servers come on top)")
	if p.CostModel == nil {
		return
	}
	t = &alignedRows{}
	for _, c := range p.Configurations {
		if cf := p.CostModel.Find(c.Cost); cf != nil {
			t.add(fmt.Sprintf("  %s → %s", c.Name, cf.Name), p.CostModel.Currency+" "+cf.Price(p.CostModel.Years).Total.Cents())
		}
	}
	if len(t.rows) > 0 {
		fmt.Fprintf(w, "priced by %s:\n", p.CostPath())
		t.write(w)
	}
}

// alignedRows prints label/value rows with the values aligned.
type alignedRows struct{ rows [][2]string }

func (a *alignedRows) add(label, value string) { a.rows = append(a.rows, [2]string{label, value}) }

func (a *alignedRows) write(w io.Writer) {
	width := 0
	for _, r := range a.rows {
		width = max(width, len([]rune(r[0])))
	}
	for _, r := range a.rows {
		fmt.Fprintf(w, "%s%*s  %s\n", r[0], width-len([]rune(r[0])), "", r[1])
	}
}

func newStudyInitCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a commented example plan (study.yaml) and its cost file (costs.yaml)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			planText, costs := plan.InitFiles()
			files := []struct {
				name string
				text []byte
			}{{"study.yaml", planText}, {"costs.yaml", costs}}
			for _, f := range files {
				if _, err := os.Stat(filepath.Join(dir, f.name)); err == nil {
					return badInput(fmt.Errorf("%s already exists: init writes a new plan; remove it or give another directory", filepath.Join(dir, f.name)))
				}
			}
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(dir, f.name), f.text, 0o644); err != nil {
					return badInput(fmt.Errorf("write %s: %w", f.name, err))
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s; check them with: rightsize study validate %s\n",
				filepath.Join(dir, "study.yaml"), filepath.Join(dir, "costs.yaml"), filepath.Join(dir, "study.yaml"))
			return nil
		},
	}
	return cmd
}

func newStudyRunCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "run PLAN.yaml",
		Short: "Run a study plan (not implemented yet)",
		Long: `Run a whole study plan. NOT IMPLEMENTED YET: it needs the managed-server
caps (--cpus, --memory, --io-limit, --pg-version) and the sweeps and
neighbour scenarios, which this version does not have. Validate plans with
rightsize study validate; run the configurations one by one with rightsize
run, and price them with rightsize cost.`,
		Args: exactArgs(1, "give one PLAN.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := loadPlan(cmd.ErrOrStderr(), args[0]); err != nil {
				return err
			}
			return badInput(errors.New("study run is not implemented yet: it needs managed-server caps, sweeps and the neighbour scenario, which this version does not have; " +
				"the plan is valid (rightsize study validate estimates it), run its configurations with rightsize run and price them with rightsize cost"))
		},
	}
}

// exactArgs requires n arguments, else bad input with msg.
func exactArgs(n int, msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return badInput(errors.New(msg))
		}
		return nil
	}
}

// plural is "1 sweep", "2 sweeps".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
