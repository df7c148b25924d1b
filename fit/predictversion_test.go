package fit

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// learntStep is the measured step the model tests learn from: 4 users,
// 30 s measured, 18,000 TPM at 1.5 ms of server CPU per transaction.
func learntStep() store.Step {
	t0 := time.Unix(1e9, 0)
	return store.Step{Index: 0, Users: 4, Start: t0, MeasureStart: t0.Add(10 * time.Second), MeasureEnd: t0.Add(40 * time.Second),
		TPM: 18000, NOPM: 8100, TPMCIHalf: 360, ServerCPUUsPerTxn: 1500}
}

// predictOneFromTwo learns ms as the candidate of 2 cores (cfg with its
// cpus) and predicts 1 core.
func predictOneFromTwo(t *testing.T, cfg capacity.Config, ms Measured) *capacity.Prediction {
	t.Helper()
	m := &Model{ConfigOf: func(c Candidate) capacity.Config { cfg.CPUs = c.Cpus; return cfg }}
	if err := m.Learn(Candidate{Cpus: 2}, ms); err != nil {
		t.Fatal(err)
	}
	p, why := m.Predict(Candidate{Cpus: 1})
	if p == nil {
		t.Fatalf("no prediction: %s", why)
	}
	return p
}

// TestModelOtherVersion: a candidate of a version none was measured of is
// predicted from the nearest measured one of another version, its band
// widened for the change of version and the prediction saying so.
func TestModelOtherVersion(t *testing.T) {
	s := learntStep()
	m := &Model{ConfigOf: func(c Candidate) capacity.Config {
		return capacity.Config{CPUs: c.Cpus, HostCPUs: 4, EngineVersion: c.Version}
	}}
	if err := m.Learn(Candidate{Cpus: 2, Version: "15"}, MeasuredOf("r1", []store.Step{s})); err != nil {
		t.Fatal(err)
	}
	same, _ := m.Predict(Candidate{Cpus: 1, Version: "15"})
	other, why := m.Predict(Candidate{Cpus: 1, Version: "17"})
	if same == nil || other == nil {
		t.Fatalf("predictions %v, %v (%s): want both", same, other, why)
	}
	if !slices.Contains(other.Band.Kinds, capacity.KindVersion) || slices.Contains(same.Band.Kinds, capacity.KindVersion) {
		t.Errorf("kinds: same version %q, another %q: want the version's error only in the other", same.Band.Kinds, other.Band.Kinds)
	}
	if other.Band.Rel <= same.Band.Rel || !strings.Contains(strings.Join(other.Notes, ";"), "version 15") {
		t.Errorf("another version: band ±%.0f %% against ±%.0f %%, notes %q: want wider and said", other.Band.Rel*100, same.Band.Rel*100, other.Notes)
	}
}

// TestModelBaseDrift: the drift a learnt candidate's A/A history measured
// (Measured.Drift) is its predictions' band's, said as measured; without
// one the band takes the default.
func TestModelBaseDrift(t *testing.T) {
	s := learntStep()
	for _, d := range []steady.Drift{{}, {CV: 0.25, Runs: 5, DF: 4}} {
		ms := MeasuredOf("r1", []store.Step{s})
		ms.Drift = d
		p := predictOneFromTwo(t, capacity.Config{HostCPUs: 4}, ms)
		want := capacity.DefaultDrift
		if d.Measured() {
			want = d.CV
		}
		if p.Band.DriftMeasured != d.Measured() || p.Band.Drift != want {
			t.Errorf("history %+v: band's drift %.2f (measured %v), want %.2f", d, p.Band.Drift, p.Band.DriftMeasured, want)
		}
	}
}

// TestModelCoreGrowth: the ratios of CPU per transaction between whole
// cores that a learnt candidate's host measured before the fit
// (Measured.CoreGrowth) stand for the contention term in its predictions
// of fewer cores, said in their notes; without them the term stays.
func TestModelCoreGrowth(t *testing.T) {
	s := learntStep()
	predict := func(growth []capacity.CoreRatio) *capacity.Prediction {
		ms := MeasuredOf("r1", []store.Step{s})
		ms.CoreGrowth = growth
		return predictOneFromTwo(t, capacity.Config{HostCPUs: 4, Mode: "procedures"}, ms)
	}
	term := predict(nil)
	learnt := predict([]capacity.CoreRatio{{From: 2, To: 1, Ratio: 0.9}, {From: 2, To: 1, Ratio: 0.9}})
	said := func(p *capacity.Prediction) bool {
		return strings.Contains(strings.Join(p.Notes, ";"), "CPU per transaction from 2 to 1 cores ×0.90")
	}
	if learnt.NOPM <= term.NOPM || !said(learnt) || said(term) {
		t.Errorf("one core: learnt ×0.90 %.0f NOPM %q, the term's %.0f %q: want the learnt higher and said", learnt.NOPM, learnt.Notes, term.NOPM, term.Notes)
	}
}
