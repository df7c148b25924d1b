package report

import (
	"fmt"
	"slices"
	"strings"
)

// neighbourKind is the sweep kind of a noisy-neighbour scenario
// (scenario.NeighbourKind); its values are "n<instance> <phase>".
const neighbourKind = "neighbour"

// renderNeighbour shows a noisy-neighbour scenario: a table per instance
// and phase, and TPM and NOPM per instance grouped by phase.
func renderNeighbour(p *Page, s *Sweep) error {
	p.Textf("Noisy neighbour %s (%s): every instance on its own copy of one build, driven at once; phase baseline without backups, phase backup with the backup probe looping on some of them.", s.ID, s.Status)
	var instances, phases []string
	cell := map[[2]string]SweepPoint{}
	var rows []Row
	for _, pt := range s.Points {
		inst, phase, _ := strings.Cut(pt.Value, " ")
		if !slices.Contains(instances, inst) {
			instances = append(instances, inst)
		}
		if !slices.Contains(phases, phase) {
			phases = append(phases, phase)
		}
		cell[[2]string{inst, phase}] = pt
		st := Txt(pt.Status)
		if pt.Status != "complete" {
			st.Class, st.Title = "warn", pt.Reason
		}
		if !pt.Measured {
			rows = append(rows, Row{Cells: []Cell{Txt(inst), Txt(phase), st, Num("-"), Num("-"), Num("-"), Txt(orDash(pt.RunID))}})
			continue
		}
		rows = append(rows, Row{Cells: []Cell{Txt(inst), Txt(phase), st, Num(fmtInt(pt.TPM)), Num(fmtInt(pt.NOPM)),
			Num(fmt.Sprintf("%.2f", pt.NewOrderP99Ms)), Txt(pt.RunID)}})
	}
	p.Table(Table{Head: []string{"instance", "phase", "status", "TPM", "NOPM", "New-Order p99 ms", "run"}, Rows: rows})
	bars := func(what string, v func(SweepPoint) float64) Chart {
		var series []BarSeries
		for i, ph := range phases {
			bs := BarSeries{Name: ph, Color: palette[i%len(palette)]}
			for _, inst := range instances {
				pt, ok := cell[[2]string{inst, ph}]
				if !ok || !pt.Measured {
					bs.Values = append(bs.Values, nil)
					continue
				}
				bs.Values = append(bs.Values, &BarValue{Mean: v(pt), Min: v(pt), Max: v(pt), Repeats: 1})
			}
			series = append(series, bs)
		}
		return GroupedBars(ChartText{Title: what + " per instance and phase", XName: "instance", YName: "per minute"}, instances, series)
	}
	p.Charts(bars("TPM", func(pt SweepPoint) float64 { return pt.TPM }), bars("NOPM", func(pt SweepPoint) float64 { return pt.NOPM }))
	p.Note("Each instance's figures are its run's step with the highest NOPM. The runs' own sections below show latency and the host's disks over time; the backup cycles are stored as backup probes labelled \"LABEL nN backup\" (rightsize report --probe LABEL).")
	return nil
}
