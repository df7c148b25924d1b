package report

import (
	"strconv"

	"github.com/rightsize/rightsize/store"
)

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
