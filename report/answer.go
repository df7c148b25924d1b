package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// WriteStepEndings prints how each step's ramp-up and measurement ended
// and the achieved precision, then the interval of each step's mean across
// repeats and how --repeat auto ended. It prints nothing for runs stored
// without this information (older stores, imports).
func WriteStepEndings(w io.Writer, run store.Run, steps []store.Step) {
	known := false
	for _, s := range steps {
		known = known || s.MeasureEndHow != ""
	}
	if !known {
		return
	}
	conf := 0.95
	for _, s := range steps {
		if s.Confidence > 0 {
			conf = s.Confidence
		}
	}
	fmt.Fprintf(w, "\n  how each step ended (precision: half-width of the %s interval of the mean, the larger of TPM and NOPM, batch means):\n", pctLevel(conf))
	head := []string{"repeat", "users", "ramp-up", "ended", "measured", "ended", "precision", "TPM", "NOPM", "ramp-up rule"}
	var rows [][]string
	for _, s := range steps {
		rows = append(rows, []string{strconv.Itoa(s.Repeat), strconv.Itoa(s.Users), wholeSeconds(s.MeasureStart.Sub(s.Start).Seconds()),
			s.RampupEnd, wholeSeconds(s.Measured().Seconds()), s.MeasureEndHow, precision(s.PrecisionPct),
			withHalf(s.TPM, s.TPMCIHalf), withHalf(s.NOPM, s.NOPMCIHalf), s.RampupNote})
	}
	writeTable(w, head, rows, []bool{true, true, true, false, true, false, true, true, true, false})

	aggs := store.Aggregate(steps)
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
		rows = append(rows, []string{strconv.Itoa(a.Users), strconv.Itoa(a.Repeats), withHalf(a.TPMCI.Mean, a.TPMCI.Half),
			precision(a.TPMCI.Rel() * 100), withHalf(a.NOPMCI.Mean, a.NOPMCI.Half), precision(a.NOPMCI.Rel() * 100)})
	}
	writeTable(w, []string{"users", "repeats", "TPM", "±", "NOPM", "±"}, rows, []bool{true, true, true, true, true, true})
	if run.RepeatEnd != "" {
		fmt.Fprintf(w, "  repeats: %s\n", run.RepeatEnd)
	}
}

// WriteComparison prints whether a's step mean is better than b's: only
// when their intervals separate (steady.Compare).
func WriteComparison(w io.Writer, what string, a, b steady.Interval) {
	fmt.Fprintf(w, "  %s: %s vs %s: %s\n", what, withHalf(a.Mean, a.Half), withHalf(b.Mean, b.Half), steady.Compare(a, b))
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
