package report

import (
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// meritOf is the figure of merit the comparison of a and b judges: TPC-C's,
// or, when both ran a pgbench workload with the same figure, the
// workload's (store.Run.WorkloadMerit), which it names in c.Figure.
func (c *Comparison) meritOf(a, b RunData) store.Merit {
	ma, okA := a.Run.WorkloadMerit()
	mb, okB := b.Run.WorkloadMerit()
	if !okA || !okB || ma.Txn != mb.Txn {
		return tpcc.Merit
	}
	c.Figure = "TPM of every script"
	if !ma.All() {
		c.Figure = "TPM of " + ma.Txn
	}
	return ma
}

// windowType is the transaction type whose latency windows stand for m in
// steps: m's own, or for every transaction the only type the steps ran
// ("" when they ran several: the windows are kept per type).
func windowType(steps []store.Step, m store.Merit) string {
	if !m.All() {
		return m.Txn
	}
	typ := ""
	for _, s := range steps {
		for _, t := range s.Txn {
			if typ != "" && t.Type != typ {
				return ""
			}
			typ = t.Type
		}
	}
	return typ
}

// nameFigures renames a workload comparison's figures after its merit
// (NOPM is the workload's figure per minute, the latencies its own); a
// TPC-C comparison keeps its names.
func (c *Comparison) nameFigures(v *Verdicts) {
	if c.Figure == "" {
		return
	}
	names := map[string]string{FigureNOPM: c.Figure, FigureP90: "p90 ms", FigureP99: "p99 ms"}
	rename := func(fs []FigureVerdict) {
		for i := range fs {
			if n, ok := names[fs[i].Figure]; ok {
				fs[i].Figure = n
			}
		}
	}
	for i := range v.Steps {
		rename(v.Steps[i].Figures)
	}
	rename(v.Overall.Figures)
}
