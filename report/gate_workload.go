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
	c.Figure = ma.Name()
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

// WorkloadFigureNames are the names of TPC-C's TPM, NOPM and New-Order
// p90 for a pgbench workload whose figure of merit is named figure
// (store.Merit.Name): TPM ("" when the merit counts every script: it is
// the TPM itself, not judged twice), the merit and its p90. compare and
// ab name a workload's figures by it.
func WorkloadFigureNames(figure string) [3]string {
	tpm := FigureTPM
	if figure == store.FigureEveryScript {
		tpm = ""
	}
	return [3]string{tpm, figure, "p90 ms"}
}

// nameFigures renames a workload comparison's figures after its merit
// (NOPM is the workload's figure per minute, the latencies its own); a
// TPC-C comparison keeps its names. When every script counts, the merit is
// the TPM itself: its TPM verdict, the same figure again, is dropped, so a
// regression is one failure, not two.
func (c *Comparison) nameFigures(v *Verdicts) {
	if c.Figure == "" {
		return
	}
	v.Figure = c.Figure
	n := WorkloadFigureNames(c.Figure)
	names := map[string]string{FigureNOPM: n[1], FigureP90: n[2], FigureP99: "p99 ms"}
	rename := func(fs []FigureVerdict) []FigureVerdict {
		out := fs[:0]
		for _, f := range fs {
			if f.Figure == FigureTPM && n[0] == "" {
				continue
			}
			if n, ok := names[f.Figure]; ok {
				f.Figure = n
			}
			out = append(out, f)
		}
		return out
	}
	for i := range v.Steps {
		v.Steps[i].Figures = rename(v.Steps[i].Figures)
	}
	v.Overall.Figures = rename(v.Overall.Figures)
}

// figureNames are how the gate's lines name the throughput figures it
// judges and the latency, for TPC-C or a workload's figure.
func (v *Verdicts) figureNames() (throughput, latency string) {
	switch v.Figure {
	case "":
		return "TPM/NOPM", "New-Order p90"
	case store.FigureEveryScript:
		return "TPM", "p90"
	default:
		return "TPM and " + v.Figure, "p90"
	}
}
