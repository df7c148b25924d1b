package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rightsize/rightsize/scenario"
)

// Sweep is a configuration sweep to report (Options.Sweep): one point per
// value with the figures of its run's peak step, and the knee.
type Sweep struct {
	ID, Label, Kind, Status string
	Threshold               float64 // fraction: 0.10
	Rule                    string  // how the knee was found
	DBBytes                 int64
	Points                  []scenario.SweepPoint
	// Knee is the index of the knee in Points (-1: none); KneeFound is
	// false when every value measured holds.
	Knee      int
	KneeFound bool
	// KneeNote, when set, is why no knee is called although a value falls
	// beyond the threshold (within the points' precision).
	KneeNote string
	// DriverNote, when some values left the driver no core of its own
	// (scenario.SweepPoint.DriverShares), says so and how to measure fairly;
	// DriverKneeNote is what the knee line adds.
	DriverNote, DriverKneeNote string
	// RunLabel is the label the sweep's runs start with ("LABEL" or
	// "sweep-ID"): the report leaves it out of them.
	RunLabel string
	// Neighbour is what a noisy-neighbour scenario adds (nil otherwise).
	Neighbour *Neighbour
	// Figure, for a pgbench workload, names its figure of merit ("every
	// script" or a script's name: scenario.SweepResult.Figure), which the
	// points' NOPM and New-Order latencies then hold; "" for TPC-C.
	Figure string
	// Rate is the transactions per second a paced sweep's runs were paced
	// to (scenario.SweepResult.Rate; 0: not paced).
	Rate float64
}

// PacedSweepNote is what a sweep paced at rate says of its values.
func PacedSweepNote(rate float64) string {
	return fmt.Sprintf("paced at %s TPS (--rate): each value's users keep that rate while they can, so the values differ by their latency (p90, p99); "+
		"a value whose users fell behind the schedule completed fewer (its run says so)", fmtFloat(rate, 1))
}

// heads are the names the sweep's views give the points' NOPM, their
// New-Order p90 and p99, and that latency: TPC-C's, or the workload's.
func (s *Sweep) heads() (merit, p90, p99, latency string) {
	if s.Figure == "" {
		return "NOPM", "New-Order p90 ms", "New-Order p99 ms", "New-Order latency"
	}
	return "TPM of " + s.Figure, "p90 ms", "p99 ms", "Latency"
}

// sweepSection shows a sweep: the figures per value, the knee and charts
// of throughput, New-Order latency and (memory) reads against the value.
type sweepSection struct{}

func (sweepSection) Title() string        { return "Sweep" }
func (sweepSection) Anchor() string       { return "sweep" }
func (sweepSection) shown(o Options) bool { return o.Sweep != nil }
func (sweepSection) Render(p *Page) error {
	if p.Sweep.Kind == neighbourKind {
		return renderNeighbour(p, p.Sweep)
	}
	return renderSweep(p, p.Sweep)
}

// sweepIntro is the sweep's answer (its knee) and what it measured: the
// runs, a paced sweep's rate, the database's size and its prewarming.
func sweepIntro(p *Page, s *Sweep) {
	if k := kneeText(s); k != "" {
		if s.DriverKneeNote != "" {
			k += " * " + s.DriverKneeNote + "."
		}
		p.Text(k)
	}
	p.Textf("Sweep %s %s (%s): one run per value, over the same built database.", s.Kind, s.ID, s.Status)
	if s.Rate > 0 {
		p.Text(PacedSweepNote(s.Rate) + ".")
	}
	if s.DBBytes > 0 {
		p.Textf("Database size: %.0f MiB.", float64(s.DBBytes)/(1<<20))
	}
	if w := prewarmedText(p, s); w != "" {
		p.Text(w)
	}
}

func renderSweep(p *Page, s *Sweep) error {
	sweepIntro(p, s)
	merit, p90Head, p99Head, latency := s.heads()
	head := []string{s.Kind, "status", "users", "TPM", merit, p90Head, p99Head, "blocks read per txn", "disk read MB/s", "run"}
	var rows []Row
	var names []string
	var tpm, nopm, p90, p99, blk, disk []opts.LineData
	for i, pt := range s.Points {
		v := pt.Value
		if i == s.Knee {
			v += " (knee)"
		}
		if pt.DriverShares {
			v += " *"
		}
		names = append(names, v)
		val := Txt(v)
		if pt.DriverShares {
			val = Cell{Text: v, Class: "warn", Title: s.DriverNote}
		}
		st := Txt(pt.Status)
		if pt.Status != "complete" {
			st.Class = "warn"
		}
		if !pt.Measured() {
			st.Title = pt.Reason
			rows = append(rows, Row{Cells: []Cell{val, st, Num("-"), Num("-"), Num("-"), Num("-"), Num("-"), Num("-"), Num("-"), Txt(orDash(pt.RunID))}})
			for _, d := range []*[]opts.LineData{&tpm, &nopm, &p90, &p99, &blk, &disk} {
				*d = append(*d, opts.LineData{Value: "-"})
			}
			continue
		}
		rows = append(rows, Row{Cells: []Cell{val, st, Num(fmt.Sprint(pt.Users)), Num(fmtInt(pt.TPM)), Num(fmtInt(pt.NOPM)),
			Num(fmt.Sprintf("%.2f", pt.NewOrderP90Ms)), Num(fmt.Sprintf("%.2f", pt.NewOrderP99Ms)),
			Num(fmt.Sprintf("%.2f", pt.BlocksReadPerTxn)), Num(fmt.Sprintf("%.1f", pt.DiskReadMBps)), Txt(pt.RunID)}})
		tpm, nopm = append(tpm, opts.LineData{Value: pt.TPM}), append(nopm, opts.LineData{Value: pt.NOPM})
		p90, p99 = append(p90, opts.LineData{Value: pt.NewOrderP90Ms}), append(p99, opts.LineData{Value: pt.NewOrderP99Ms})
		blk, disk = append(blk, opts.LineData{Value: pt.BlocksReadPerTxn}), append(disk, opts.LineData{Value: pt.DiskReadMBps})
	}
	p.Table(Table{Head: head, Rows: rows})
	if s.DriverNote != "" {
		p.HTML(template.HTML(`<p><span class="warn">*</span> ` + html.EscapeString(s.DriverNote) + "</p>\n"))
	}
	predictionsTable(p, s.Kind, sweepPredictions(s))
	type series struct {
		name string
		data []opts.LineData
	}
	line := func(title, yname string, ss ...series) Chart {
		l := charts.NewLine()
		l.SetGlobalOptions(rectOpts(ChartText{Title: title, XName: s.Kind, YName: yname}, "axis")...)
		l.SetXAxis(names)
		for _, x := range ss {
			l.AddSeries(x.name, x.data)
		}
		return l
	}
	cs := []Chart{line("Throughput by "+s.Kind, "per minute", series{"TPM", tpm}, series{merit, nopm}),
		line(latency+" by "+s.Kind, "ms", series{"p90", p90}, series{"p99", p99})}
	if s.Kind == "memory" {
		cs = append(cs, line("Reads by memory", "", series{"server blocks read per transaction", blk}, series{"disk read MB/s", disk}))
	}
	p.Charts(cs...)
	p.Note("Each value's figures are its run's step with the highest " + merit + " (means across repeats, as everywhere in this report). Knee rule: " + s.Rule + ".")
	return nil
}

// prewarmedText says which values' runs started from a prewarmed cache
// (--prewarm) and what it loaded ("" when none did).
func prewarmedText(p *Page, s *Sweep) string {
	byID := map[string]string{}
	for _, rd := range p.Runs {
		if w := rd.Run.Prewarmed(); w != "" {
			byID[rd.Run.ID] = strings.TrimPrefix(w, "cache prewarmed: ")
		}
	}
	var parts []string
	for _, pt := range s.Points {
		if w, ok := byID[pt.RunID]; ok {
			parts = append(parts, pt.Value+" "+w)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Cache prewarmed before each ramp-up (--prewarm): " + strings.Join(parts, ", ") + "."
}

// sweepPredictions are the rows of a sweep's predictions table.
func sweepPredictions(s *Sweep) []predictedRow {
	var rows []predictedRow
	for _, pt := range s.Points {
		if pt.Measured() {
			r := predictedRow{name: pt.Value, measured: fmtInt(pt.NOPM), note: pt.PredictNote}
			if pr := pt.Predicted; pr != nil {
				r.p, r.errorPct, r.hasError = &pr.Prediction, pr.ErrorPct, true
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// kneeText is the sweep's answer: its knee, or why there is none ("" when
// no value was measured).
func kneeText(s *Sweep) string {
	switch {
	case s.KneeNote != "":
		return "Knee: " + s.KneeNote + "."
	case s.Knee >= 0 && s.KneeFound:
		merit, p90Head, _, _ := s.heads()
		return fmt.Sprintf("Knee: %s = %s, the smallest value within %.0f %% of the best %s and %s; the next value falls beyond.", s.Kind, s.Points[s.Knee].Value, s.Threshold*100, merit, strings.TrimSuffix(p90Head, " ms"))
	case s.Knee >= 0:
		return fmt.Sprintf("No knee within the values tried: every value down to %s is within %.0f %% of the best.", s.Points[s.Knee].Value, s.Threshold*100)
	case s.KneeFound:
		return fmt.Sprintf("Knee above the values tried: %s = %s is already more than %.0f %% below the best.", s.Kind, s.Points[0].Value, s.Threshold*100)
	}
	return ""
}
