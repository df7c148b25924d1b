package fit

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/steady"
)

// Answer is the search's conclusion in one line: the configuration, its
// cost and the savings against the baseline (nil: none), or, when nothing
// meets the target, the closest candidate and how far it falls short.
func (r *Result) Answer(currency string, baseline *cost.Breakdown) string {
	if r.Best < 0 {
		if r.Closest < 0 {
			return fmt.Sprintf("no configuration meets %s %s: none was measured", r.Criteria.figure(), fmtInt(r.Criteria.TargetNOPM)) + r.Criteria.workloadNote()
		}
		c := r.Trials[r.Closest]
		short := fmt.Sprintf("%.1f %% short", r.Shortfall())
		if c.NOPM >= r.Criteria.TargetNOPM { // missed on its interval or its p90
			short = "but " + c.Reason
		}
		return fmt.Sprintf("no configuration meets %s %s: the closest, %s (%s %s), reached %s, %s", r.Criteria.figure(),
			fmtInt(r.Criteria.TargetNOPM), c.Candidate, currency, c.Cost.Total.Cents(), withHalf(c.Interval), short) + r.tiedWith() + r.unsettledText(currency) + r.Criteria.workloadNote()
	}
	b := r.Trials[r.Best]
	s := fmt.Sprintf("%s meets %s %s for %s %s", b.Candidate, r.Criteria.figure(), fmtInt(r.Criteria.TargetNOPM), currency, b.Cost.Total.Cents())
	if baseline != nil {
		if sav, pct := cost.Savings(baseline.Total, b.Cost.Total); pct != nil {
			s += fmt.Sprintf(", %s %s (%.1f %%) less than %s", currency, sav.Cents(), *pct, baseline.Name)
		}
	}
	return s + r.proof() + r.tiedWith() + r.unsettledText(currency) + r.Criteria.workloadNote()
}

// unsettledText names the cheaper candidates not distinguishable from the
// target ("" when none): "; the cheaper cpus 0.25 (USD 10.00, NOPM 7,000
// ± 1,300 over 3 runs) is not distinguishable from the target at this
// precision: it may meet it too (...)".
// With no answer, the closest is left out: its own words say it.
func (r *Result) unsettledText(currency string) string {
	var parts []string
	for _, i := range r.Unsettled {
		if r.Best < 0 && i == r.Closest {
			continue
		}
		t := r.Trials[i]
		runs := ""
		if t.Runs > 1 {
			runs = fmt.Sprintf(" over %d runs", t.Runs)
		}
		parts = append(parts, fmt.Sprintf("%s (%s %s, %s %s%s)", t.Candidate, currency, t.Cost.Total.Cents(), r.Criteria.figure(), withHalf(t.Interval), runs))
	}
	if len(parts) == 0 {
		return ""
	}
	verb, which := "is", "the cheaper "
	if len(parts) > 1 {
		verb = "are"
	}
	if r.Best < 0 {
		which = ""
	}
	return fmt.Sprintf("; %s%s %s %s from the target %s: may meet it too (longer runs, --repeat N --mean or the drift measured with rightsize calibrate narrow the interval)",
		which, strings.Join(parts, ", "), verb, steady.Indistinguishable, fmtInt(r.Criteria.TargetNOPM))
}

// proof says how the answer was proven: " (2 of 6 candidates measured)",
// and how many cheaper candidates a prediction ruled out.
func (r *Result) proof() string {
	s := fmt.Sprintf(" (%d of %d candidates measured", r.Measured(), len(r.Trials))
	if n := r.runs(); n > r.Measured() {
		s += fmt.Sprintf(", %d runs: one that held the target was measured again", n)
	}
	if n := r.ByPrediction(); n > 0 {
		s += fmt.Sprintf("; %d ruled out by prediction, not measurement: --measure-all measures them", n)
	}
	return s + ")"
}

// tiedWith names the candidates the answer cannot be told apart from
// ("" when none): "; not distinguishable at this precision from cpus 1
// (NOPM 4,990 ± 60, misses)".
func (r *Result) tiedWith() string {
	var parts []string
	for _, p := range r.Indistinct {
		t := r.Trials[p.B]
		parts = append(parts, fmt.Sprintf("%s (%s %s, %s)", t.Candidate, r.Criteria.figure(), withHalf(t.Interval), t.Verdict))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + steady.Indistinguishable.String() + " from " + strings.Join(parts, ", ")
}

// WriteText prints the answer and the evidence: every candidate in the
// order tried, its cost, verdict, reason and run.
func (r *Result) WriteText(w io.Writer, currency string, baseline *cost.Breakdown) error {
	var b strings.Builder
	b.WriteString(r.Answer(currency, baseline) + "\n")
	width := 0
	for _, t := range r.Trials {
		width = max(width, len(t.Candidate.String()))
	}
	costW := 0
	for _, t := range r.Trials {
		costW = max(costW, len(t.Cost.Total.Cents()))
	}
	for i, t := range r.Trials {
		run := ""
		if t.RunID != "" {
			run = "  run " + t.RunID
		}
		fmt.Fprintf(&b, "%3d. %-*s  %s %*s  %-10s  %s%s%s\n", i+1, width, t.Candidate, currency, costW, t.Cost.Total.Cents(), t.Verdict, t.Reason,
			predictedText(t), run)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// predictedText is a measured trial's prediction beside its measurement
// ("; predicted 4,100 (limit: CPU), error +3.2 %"), "" without one.
func predictedText(t Trial) string {
	e, ok := t.PredictionError()
	if !ok {
		return ""
	}
	return fmt.Sprintf("; predicted %s (limit: %s), error %+.1f %%", fmtInt(t.Prediction.NOPM), t.Prediction.Limit, e)
}

// WriteText prints the round as a table: each candidate, its price, the
// predicted NOPM with its band, the limiting resource and the decision.
func (r Round) WriteText(w io.Writer, currency string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "predicted against the target %s %s:\n", r.Criteria.figure(), fmtInt(r.Criteria.TargetNOPM))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tcandidate\t%s\tpredicted %s\tband\tlimit\t decision\n", currency, r.Criteria.figure())
	for i, t := range r.Trials {
		pred, band, limit := "-", "-", "-"
		if p := t.Prediction; p != nil {
			pred, band, limit = fmtInt(p.NOPM), fmtInt(p.NOPMLow)+" to "+fmtInt(p.NOPMHigh), p.Limit
		}
		fmt.Fprintf(tw, "%d.\t%s\t%s\t%s\t%s\t%s\t %s\n", i+1, t.Candidate, t.Cost.Total.Cents(), pred, band, limit, r.Decision(i))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// runs counts the runs measured, re-measurements included.
func (r *Result) runs() int {
	n := 0
	for _, t := range r.Trials {
		if t.measured() {
			n += max(1, t.Runs)
		}
	}
	return n
}
