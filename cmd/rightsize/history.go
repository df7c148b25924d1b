package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/changepoint"
	"github.com/rightsize/rightsize/history"
	"github.com/rightsize/rightsize/report"
)

func newHistoryCmd() *cobra.Command {
	var prefix, figure, htmlOut string
	var asJSON bool
	var o changepoint.Options
	cmd := &cobra.Command{
		Use:   "history --label PREFIX",
		Short: "Show a figure of the runs labelled PREFIX* over time, with the change points where it moved",
		Long: `Show a headline figure (--figure) of every run whose label starts with
PREFIX, oldest first, and the change points where its distribution moved,
found by E-divisive means (Matteson & James 2014, as MongoDB's and Apache
Otava's performance CI run it): a nightly job sees a slow drift or a step
that a gate between two runs misses in their noise. The permutation test
is seeded: one store gives one answer.`,
		Example: `  rightsize history --label nightly
  rightsize history --label nightly --figure nopm --json
  rightsize history --label nightly --html history.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if prefix == "" {
				return badInput(errors.New("history needs --label PREFIX: the start of the labels of the runs to follow"))
			}
			f, err := history.FigureNamed(figure)
			if err != nil {
				return badInput(err)
			}
			if o.PValue <= 0 || o.PValue >= 1 || o.Permutations < 1 {
				return badInput(errors.New("--p-value must lie between 0 and 1 and --permutations be at least 1"))
			}
			st, err := openResults(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			h, err := history.Load(cmd.Context(), st, prefix, f, o)
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				return writeJSON(cmd.OutOrStdout(), h)
			case htmlOut != "":
				return writeHistoryHTML(cmd, htmlOut, h)
			}
			return history.WriteText(cmd.OutOrStdout(), h)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&prefix, "label", "", "follow the runs whose label starts with this")
	fl.StringVar(&figure, "figure", history.Figures[0].Name, "the figure to follow: "+figureNames())
	fl.BoolVar(&asJSON, "json", false, "print the runs and change points as JSON")
	fl.StringVar(&htmlOut, "html", "", `write an offline HTML page with the chart and the table to this file ("-" for standard output)`)
	fl.Float64Var(&o.PValue, "p-value", 0.05, "the largest permutation p-value of a change point")
	fl.IntVar(&o.Permutations, "permutations", 100, "permutations of each significance test")
	return cmd
}

func figureNames() string {
	s := ""
	for i, f := range history.Figures {
		if i > 0 {
			s += ", "
		}
		s += f.Name + " (" + f.Title + ")"
	}
	return s
}

// writeHistoryHTML writes the history page: the report's history section.
func writeHistoryHTML(cmd *cobra.Command, out string, h *history.History) error {
	opts := report.Options{Title: "rightsize history: " + h.FigureTitle + " of " + h.Prefix + "*", Version: version, History: h,
		Sections: []report.Section{}}
	for _, s := range report.DefaultSections() {
		if s.Anchor() == "history" {
			opts.Sections = append(opts.Sections, s)
		}
	}
	if out == "-" {
		return report.HTML(cmd.OutOrStdout(), nil, opts)
	}
	if err := writeFileAtomic(out, func(f *os.File) error { return report.HTML(f, nil, opts) }); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %s of %d runs (open it in a browser; it needs no network)\n", out, h.FigureTitle, len(h.Points))
	return nil
}
