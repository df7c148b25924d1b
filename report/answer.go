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

// endingsKnown reports whether the steps were stored with how they ended
// (schema 4 on, not imported) and the confidence of their intervals.
func endingsKnown(steps []store.Step) (known bool, conf float64) {
	conf = 0.95
	for _, s := range steps {
		known = known || s.MeasureEndHow != ""
		if s.Confidence > 0 {
			conf = s.Confidence
		}
	}
	return known, conf
}

func precisionMeaning(conf float64) string {
	return "half-width of the " + pctLevel(conf) + " interval of the mean, the larger of TPM and NOPM, batch means"
}

var (
	endingHead  = []string{"repeat", "users", "ramp-up", "ended", "measured", "ended", "precision", "TPM", "NOPM", "ramp-up rule"}
	endingRight = []bool{true, true, true, false, true, false, true, true, true, false} // figures
)

// endingCells is one step's row under endingHead.
func endingCells(s store.Step) []string {
	return []string{strconv.Itoa(s.Repeat), strconv.Itoa(s.Users), wholeSeconds(s.MeasureStart.Sub(s.Start).Seconds()),
		s.RampupEnd, wholeSeconds(s.Measured().Seconds()), s.MeasureEndHow, precision(s.PrecisionPct),
		withHalf(s.TPM, s.TPMCIHalf), withHalf(s.NOPM, s.NOPMCIHalf), s.RampupNote}
}

// answerSection is the report's "How the steps ended": per run and step,
// how ramp-up and measurement ended and the precision achieved.
type answerSection struct{}

func (answerSection) Title() string  { return "How the steps ended" }
func (answerSection) Anchor() string { return "endings" }

func (answerSection) Render(p *Page) error {
	shown := false
	for i, rd := range p.Runs {
		known, conf := endingsKnown(rd.Steps)
		if !known {
			continue
		}
		shown = true
		var rows []Row
		for _, s := range rd.Steps {
			var cells []Cell
			for j, c := range endingCells(s) {
				if endingRight[j] {
					cells = append(cells, Num(c))
				} else {
					cells = append(cells, Txt(c))
				}
			}
			rows = append(rows, Row{Cells: cells})
		}
		p.Table(Table{Caption: p.Labels[i] + ": precision is the " + precisionMeaning(conf), Head: endingHead, Rows: rows})
		if rd.Run.RepeatEnd != "" {
			p.Textf("%s repeats: %s.", p.Labels[i], rd.Run.RepeatEnd)
		}
	}
	if !shown {
		p.Note("These runs were stored without how their steps ended (stores before schema 4, imported runs).")
	}
	return nil
}

func pctLevel(conf float64) string { return strconv.FormatFloat(conf*100, 'g', -1, 64) + " %" }

func wholeSeconds(s float64) string { return strconv.FormatFloat(s, 'f', 0, 64) + " s" }

func precision(pct float64) string {
	if pct <= 0 || pct > 1e6 {
		return "-"
	}
	return "±" + fmtPct(pct)
}

func withHalf(mean, half float64) string {
	if half <= 0 {
		return fmtInt(mean)
	}
	return fmtInt(mean) + " ± " + fmtInt(half)
}
