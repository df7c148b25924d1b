package report

import (
	"fmt"
	"io"

	"github.com/rightsize/rightsize/analysis"
)

// writeWhy writes the run's verdict and each step's to the end-of-run
// summary (nothing when no step has one).
func writeWhy(w io.Writer, steps []analysis.StepAggregate) {
	v, ok := analysis.RunVerdict(steps)
	if !ok {
		return
	}
	fmt.Fprintf(w, "\n  why: %s\n", v.Text)
	for i := range steps {
		a := &steps[i]
		if a.Verdict == nil {
			continue
		}
		line := fmt.Sprintf("    %5d users  %s", a.Users, a.Verdict.Text)
		if wp := a.Waits; wp != nil && len(wp.Missing) > 0 {
			line += " [incomplete: " + joinMissing(wp) + "]"
		}
		fmt.Fprintln(w, line)
	}
}
