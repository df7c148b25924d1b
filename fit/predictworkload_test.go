package fit

import (
	"testing"
	"time"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

// TestModelWorkloadFigure: with a pgbench workload's merit the model
// learns the figure's share and p90 from the step (its NOPM holds the
// figure), predicts the figure named as such, and a candidate predicted
// to miss says so in the figure's name.
func TestModelWorkloadFigure(t *testing.T) {
	t0 := time.Unix(1e9, 0)
	s := store.Step{Index: 0, Users: 4, Start: t0, MeasureStart: t0.Add(10 * time.Second), MeasureEnd: t0.Add(40 * time.Second),
		TPM: 18000, NOPM: 1800, TPMCIHalf: 360, ServerCPUUsPerTxn: 1500,
		Txn: []store.TxnSummary{{Type: "select", Txn: figures.Txn{Count: 8100, P90Ms: 2}}, {Type: "update", Txn: figures.Txn{Count: 900, P90Ms: 9}}}}
	cfg := func(c Candidate) capacity.Config { return capacity.Config{CPUs: c.Cpus, HostCPUs: 4} }
	for _, c := range []struct {
		name   string
		merit  *store.Merit
		figure string
		share  float64
	}{
		{"update's TPM", &store.Merit{Txn: "update", PerMinute: "TPM"}, "TPM of update", 0.1},
		{"TPC-C", nil, "", 0.1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &Model{ConfigOf: cfg, Merit: c.merit}
			if err := m.Learn(Candidate{Cpus: 2}, MeasuredOf("r1", []store.Step{s})); err != nil {
				t.Fatal(err)
			}
			d := m.Demands()[0]
			p, why := m.Predict(Candidate{Cpus: 0.5})
			if p == nil {
				t.Fatal(why)
			}
			if d.Figure != c.figure || p.Figure != c.figure || !near(p.NOPM, p.TPM*c.share, 1e-9) {
				t.Errorf("demands' figure %q, prediction's %q, NOPM %.0f of TPM %.0f: want %q at share %g", d.Figure, p.Figure, p.NOPM, p.TPM, c.figure, c.share)
			}
			if c.merit != nil && d.NewOrderP90Ms != 9 {
				t.Errorf("figure p90 %g ms, want update's 9", d.NewOrderP90Ms)
			}
		})
	}
	got := predictedMissReason(capacity.Prediction{Figure: "TPM of every script", NOPM: 4100, NOPMLow: 3900, NOPMHigh: 4300, Limit: capacity.LimitCPU}, 5000)
	if want := "not measured: predicted TPM of every script 4,100 (3,900 to 4,300; limit: CPU), below the target 5,000 by 18.0 %"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}

func near(got, want, rel float64) bool { d := got - want; return d <= rel*want && -d <= rel*want }
