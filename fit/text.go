package fit

import (
	"fmt"
	"io"
	"strings"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/steady"
)

// Answer is the search's conclusion in one line: the configuration, its
// cost and the savings against the baseline (nil: none), or, when nothing
// meets the target, the closest candidate and how far it falls short.
func (r *Result) Answer(currency string, baseline *cost.Breakdown) string {
	if r.Best < 0 {
		if r.Closest < 0 {
			return fmt.Sprintf("no configuration meets NOPM %s: none was measured", fmtInt(r.Criteria.TargetNOPM))
		}
		c := r.Trials[r.Closest]
		short := fmt.Sprintf("%.1f %% short", r.Shortfall())
		if c.NOPM >= r.Criteria.TargetNOPM { // missed on its interval or its p90
			short = "but " + c.Reason
		}
		return fmt.Sprintf("no configuration meets NOPM %s: the closest, %s (%s %s), reached %s, %s",
			fmtInt(r.Criteria.TargetNOPM), c.Candidate, currency, c.Cost.Total.Cents(), withHalf(c.Interval), short) + r.tiedWith()
	}
	b := r.Trials[r.Best]
	s := fmt.Sprintf("%s meets NOPM %s for %s %s", b.Candidate, fmtInt(r.Criteria.TargetNOPM), currency, b.Cost.Total.Cents())
	if baseline != nil {
		if sav, pct := cost.Savings(baseline.Total, b.Cost.Total); pct != nil {
			s += fmt.Sprintf(", %s %s (%.1f %%) less than %s", currency, sav.Cents(), *pct, baseline.Name)
		}
	}
	return s + fmt.Sprintf(" (%d of %d candidates measured)", r.Measured(), len(r.Trials)) + r.tiedWith()
}

// tiedWith names the candidates the answer cannot be told apart from
// ("" when none): "; not distinguishable at this precision from cpus 1
// (NOPM 4,990 ± 60, misses)".
func (r *Result) tiedWith() string {
	var parts []string
	for _, p := range r.Indistinct {
		t := r.Trials[p.B]
		parts = append(parts, fmt.Sprintf("%s (NOPM %s, %s)", t.Candidate, withHalf(t.Interval), t.Verdict))
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
		fmt.Fprintf(&b, "%3d. %-*s  %s %*s  %-10s  %s%s\n", i+1, width, t.Candidate, currency, costW, t.Cost.Total.Cents(), t.Verdict, t.Reason, run)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
