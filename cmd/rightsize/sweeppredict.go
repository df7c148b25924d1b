package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rightsize/rightsize/scenario"
)

// writeSweepPredictions prints, per value, the figure of merit (NOPM, a
// workload's FIG/min) the capacity model predicted from the values
// measured before it, beside the one measured.
func writeSweepPredictions(w io.Writer, r *scenario.SweepResult) {
	fmt.Fprintln(w, "  predicted from the values measured before each (the first measured is the base):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fig := "NOPM"
	if r.Figure != "" {
		fig = "FIG/min"
	}
	fmt.Fprintf(tw, "  \tVALUE\t%s measured\t%s predicted\tband\tin band\terror\tlimit\tnote\n", fig, fig)
	for _, p := range r.Points {
		switch {
		case p.Predicted != nil:
			pr := p.Predicted
			fmt.Fprintf(tw, "  \t%s\t%.0f\t%.0f\t%.0f to %.0f\t%s\t%+.1f %%\t%s\t%s\n", p.Value, p.NOPM, pr.NOPM, pr.NOPMLow, pr.NOPMHigh, inBandWord(pr.InBand), pr.ErrorPct, pr.Limit, joinNotes(pr.Notes))
		case p.Measured():
			fmt.Fprintf(tw, "  \t%s\t%.0f\t-\t-\t-\t-\t-\t%s\n", p.Value, p.NOPM, p.PredictNote)
		}
	}
	tw.Flush() //nolint:errcheck // terminal output
}

func joinNotes(notes []string) string {
	s := ""
	for i, n := range notes {
		if i > 0 {
			s += "; "
		}
		s += n
	}
	return s
}

// inBandWord is "yes" when the measurement lies within the band.
func inBandWord(in bool) string {
	if in {
		return "yes"
	}
	return "no"
}
