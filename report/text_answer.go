package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// WriteStepEndings prints how each step's ramp-up and measurement ended
// and the achieved precision, then the interval of each step's mean across
// repeats and how --repeat auto ended. It prints nothing for runs stored
// without this information (older stores, imports).
func WriteStepEndings(w io.Writer, run store.Run, steps []store.Step) {
	known, conf := endingsKnown(steps)
	if !known {
		return
	}
	fmt.Fprintf(w, "\n  how each step ended (precision: %s):\n", precisionMeaning(conf))
	var rows [][]string
	for _, s := range steps {
		rows = append(rows, endingCells(s))
	}
	writeTable(w, endingHead, rows, endingRight)

	aggs := analysis.Aggregate(steps)
	repeated := false
	for _, a := range aggs {
		repeated = repeated || a.TPMCI.N > 1
	}
	if !repeated {
		return
	}
	fmt.Fprintf(w, "\n  across repeats (%s t interval of the mean):\n", pctLevel(conf))
	rows = nil
	for _, a := range aggs {
		rows = append(rows, []string{strconv.Itoa(a.Users), strconv.Itoa(a.Repeats), withHalf(a.TPM.Mean, a.TPMCI.Half),
			precision(a.TPMCI.Rel() * 100), withHalf(a.NOPM.Mean, a.NOPMCI.Half), precision(a.NOPMCI.Rel() * 100)})
	}
	head := []string{"users", analysis.ColRepeats.Head, analysis.ColTPM.Head, "±", analysis.ColNOPM.Head, "±"}
	writeTable(w, head, rows, []bool{true, true, true, true, true, true})
	if run.RepeatEnd != "" {
		fmt.Fprintf(w, "  repeats: %s\n", run.RepeatEnd)
	}
}

// writeVerdicts says, per users count both runs repeated, whether B's mean
// TPM is better than A's: only when their intervals across repeats
// separate (steady.Compare).
func (c *Comparison) writeVerdicts(w io.Writer) {
	var lines []string
	for _, r := range c.Rows {
		if r.A == nil || r.B == nil || r.A.TPMCI.N < 2 || r.B.TPMCI.N < 2 {
			continue
		}
		v := "B is better"
		switch steady.Compare(r.B.TPMCI, r.A.TPMCI) {
		case steady.SecondBetter:
			v = "A is better"
		case steady.Indistinguishable:
			v = steady.Indistinguishable.String()
		}
		lines = append(lines, fmt.Sprintf("  %d users: TPM A %s, B %s: %s", r.Users, withHalf(r.A.TPMCI.Mean, r.A.TPMCI.Half),
			withHalf(r.B.TPMCI.Mean, r.B.TPMCI.Half), v))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n  B against A, %s intervals of the mean across repeats (better only when they separate):\n", pctLevel(verdictConfidence(c)))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// verdictConfidence is the confidence of the comparison's intervals.
func verdictConfidence(c *Comparison) float64 {
	for _, r := range c.Rows {
		if r.A != nil && r.A.TPMCI.Confidence > 0 {
			return r.A.TPMCI.Confidence
		}
	}
	return 0.95
}
