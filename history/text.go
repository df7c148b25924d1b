package history

import (
	"fmt"
	"io"
	"text/tabwriter"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// WriteText prints the history as a table, oldest run first, a line
// where each change point starts a new segment, and a sentence per
// change point (or that there is none).
func WriteText(w io.Writer, h *History) error {
	pr := message.NewPrinter(language.English)
	if len(h.Points) == 0 {
		_, err := pr.Fprintf(w, "no run labelled %q* has a %s (%d without one)\n", h.Prefix, h.FigureTitle, h.Skipped)
		return err
	}
	pr.Fprintf(w, "%s of %d runs labelled %q*, oldest first; change points by E-divisive means (p ≤ %g, %d permutations)\n\n",
		h.FigureTitle, len(h.Points), h.Prefix, h.PValue, h.Permutations)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "started\trun\tlabel\t"+h.Figure+"\tsegment mean\tchange")
	next := 0
	for i, p := range h.Points {
		change := ""
		if next < len(h.Changes) && h.Changes[next].Index == i {
			c := h.Changes[next]
			change = pr.Sprintf("◀ change point %+.1f %%, %s", c.ChangePct, h.PText(c.PValue))
			next++
		}
		_, m := h.Segment(i)
		pr.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%s\n", p.Started.Local().Format("2006-01-02 15:04"), p.RunID, p.Label, p.Value, m, change)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(h.Changes) == 0 {
		_, err := pr.Fprintf(w, "no change point at p ≤ %g: no shift in the %d runs' %s is significant (a change needs about four runs on each side)\n",
			h.PValue, len(h.Points), h.FigureTitle)
		return err
	}
	for _, c := range h.Changes {
		if _, err := pr.Fprintf(w, "change point at run %s (%s): %s %.0f before, %.0f after (%+.1f %%), %s\n", c.RunID,
			c.Started.Local().Format("2006-01-02 15:04"), h.FigureTitle, c.Before, c.After, c.ChangePct, h.PText(c.PValue)); err != nil {
			return err
		}
	}
	return nil
}
