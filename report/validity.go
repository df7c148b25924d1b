package report

import (
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/analysis"
)

// validitySection shows the TPC-C validity verdict of every step.
type validitySection struct{}

func (validitySection) Title() string  { return "TPC-C validity" }
func (validitySection) Anchor() string { return "validity" }

func (validitySection) Render(p *Page) error {
	renderWorkloads(p)
	var rows []Row
	for i, rd := range p.Runs {
		for _, a := range analysis.Aggregate(rd.Steps) {
			if a.Validity == nil {
				continue
			}
			verdict := Txt("valid")
			if !a.Validity.Valid {
				verdict = Cell{Text: "not valid", Class: "warn"}
			}
			rows = append(rows, Row{Cells: []Cell{Txt(p.Labels[i]), Txt(orDash(rd.Run.Isolation)), Num(strconv.Itoa(a.Users)), verdict,
				Txt(orDash(strings.Join(a.Validity.Violations, "; ")))}})
		}
	}
	if len(rows) == 0 {
		p.Note("No step of these runs has a validity verdict (runs stored before rightsize computed them, and imported runs).")
		return nil
	}
	p.Table(Table{Head: []string{"run", "isolation", "users", "verdict", "violations"}, Rows: rows})
	p.Note("A measurement interval is valid when it meets what TPC-C requires of one: the mix minimums (5.2.3), New-Order rollbacks " +
		"0.9-1.1 % (2.4.1.4), remote order lines 0.95-1.05 % and remote payments 14-16 % with more than one warehouse (5.5.1.5), " +
		"at most 1 % skipped deliveries (2.7.4.2), 90th percentiles within 5 s (Stock-Level 20 s, 5.2.5.3), isolation level 3 (3.4), " +
		"10 users per warehouse (4.2.2), keying and think times on, and at least 120 minutes. A step that is not valid still counts, " +
		"marked; a run without think times is not a TPC-C result. Delivery runs in the user's own transaction, as HammerDB, go-tpc and " +
		"CockroachDB's workload run it, its 90th percentile held to the terminal's 5 s, unless the run queued it for deferred execution " +
		"(--delivery deferred, 2.7.2): then 90 % of the deferred Deliveries must complete within 80 s of queueing. " +
		"Each violated share is set against the counts a correct driver shows by chance alone at the step's counts (99 %: binomial for " +
		"rollbacks and remote shares, the per-user 23-card deck for the mix): within chance, a longer interval settles it; outside it, the " +
		"driver or the database is wrong.")
	return nil
}
