package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// TestFromStepOfWorkload: a pgbench workload's step holds its figure of
// merit as NOPM; the demands stay per transaction of every script, the
// figure's share and p90 are the merit's, and the demands name it.
func TestFromStepOfWorkload(t *testing.T) {
	s := step(time.Unix(1e9, 0))
	s.Txn = []store.TxnSummary{{Type: "select", Txn: figures.Txn{Count: 900, P90Ms: 2}}, {Type: "update", Txn: figures.Txn{Count: 100, P90Ms: 9}}}
	for _, c := range []struct {
		name       string
		merit      store.Merit
		nopm       float64
		share, p90 float64
		figure     string
	}{
		{"every script", store.Merit{PerMinute: "TPM"}, 18000, 1, 9, "TPM of every script"},
		{"one script", store.Merit{Txn: "update", PerMinute: "TPM"}, 1800, 0.1, 9, "TPM of update"},
		{"the other", store.Merit{Txn: "select", PerMinute: "TPM"}, 16200, 0.9, 2, "TPM of select"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.NOPM = c.nopm
			d, err := FromStepOf(s, Config{CPUs: 2}, 0, c.merit)
			if err != nil {
				t.Fatal(err)
			}
			if !near(d.NewOrderShare, c.share, 1e-9) || d.NewOrderP90Ms != c.p90 || d.Figure != c.figure {
				t.Errorf("share %g, p90 %g, figure %q; want %g, %g, %q", d.NewOrderShare, d.NewOrderP90Ms, d.Figure, c.share, c.p90, c.figure)
			}
			if !near(d.CPUSec.Mean, 0.0015, 1e-9) {
				t.Errorf("CPU %g s/txn: want every transaction's, 0.0015", d.CPUSec.Mean)
			}
			m, err := New(d, ReadCurve{})
			if err != nil {
				t.Fatal(err)
			}
			p := m.Predict(Config{CPUs: 1})
			if p.Figure != c.figure || p.FigureLabel() != c.figure || !near(p.NOPM, p.TPM*c.share, 1e-9) {
				t.Errorf("prediction figure %q (%q), NOPM %.0f of TPM %.0f: want %q at share %g", p.Figure, p.FigureLabel(), p.NOPM, p.TPM, c.figure, c.share)
			}
		})
	}
	if d, _ := FromStep(step(time.Unix(1e9, 0)), Config{CPUs: 2}, 0); d.Figure != "" || FigureName(tpcc.Merit) != "" {
		t.Errorf("TPC-C's figure %q, want \"\" (NOPM)", d.Figure)
	}
	if got := (Prediction{}).FigureLabel(); got != "NOPM" {
		t.Errorf("TPC-C's label %q", got)
	}
}

// TestPredictWorkloadMemory: from one memory size, a TPC-C base of known
// warehouses follows TPC-C's miss-ratio curve; a workload's does not,
// even with a warehouse count: its reads are held as measured, the
// prediction says the model cannot know, and the band carries the error
// of memory from one size.
func TestPredictWorkloadMemory(t *testing.T) {
	const mib = 1 << 20
	b := base(6000)
	b.Config = Config{CPUs: 2, CacheBytes: 1024 * mib, ReadIOPS: 100, Warehouses: 4, Engine: "postgres"}
	b.ReadIOs, b.TPM = steady.Interval{Mean: 0.05}, steady.Interval{Mean: 6000, Half: 60}
	to := Config{CPUs: 2, CacheBytes: 160 * mib, ReadIOPS: 100, Warehouses: 4, Engine: "postgres"}
	tm, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	w := b
	w.Figure = "TPM of every script"
	wm, err := New(w, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	tp, wp := tm.Predict(to), wm.Predict(to)
	if tp.TPM >= 0.9*wp.TPM {
		t.Errorf("TPC-C from its miss curve %.0f TPM, the workload's %.0f: want TPC-C's reads to grow at 160M and its throughput to fall", tp.TPM, wp.TPM)
	}
	if !near(wp.TPM, wm.Predict(b.Config).TPM, 0.02) {
		t.Errorf("workload at 160M %.0f TPM, at the base %.0f: want its reads held as measured", wp.TPM, wm.Predict(b.Config).TPM)
	}
	notes := strings.Join(wp.Notes, " | ")
	if !strings.Contains(notes, "the model cannot know how a pgbench workload's reads change with memory") || !contains(wp.Band.Kinds, KindMemoryOne) {
		t.Errorf("workload notes %q, band %+v: want the model to say it cannot know and the band of memory from one size", notes, wp.Band)
	}
	if wp.Band.Rel < errorOf(KindMemoryOne) {
		t.Errorf("band ±%.0f %%, want at least memory from one size's ±%.0f %%", wp.Band.Rel*100, errorOf(KindMemoryOne)*100)
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
