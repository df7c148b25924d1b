package drift

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// Three runs of one configuration (labels and durations differ) measured
// 100, 110 and 90 TPM at 1 user and 200, 220, 190 at 2 users: the pooled
// CV is 0.0884411 (steady's TestDriftWiden); a run with --cpus 0.5 and a
// run on another host are other configurations and add nothing.
func TestMeasure(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	add := func(label string, flags, env map[string]string, tpm1, tpm2 float64) store.Run {
		r := &store.Run{Label: label, Source: store.SourceRightsize, Target: "embedded", Users: []int{1, 2}, Repeats: 1,
			Flags: flags, Env: env, StartedAt: time.Date(2026, 1, 1, 0, 0, len(label), 0, time.UTC)}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i, v := range []float64{tpm1, tpm2} {
			s := &store.Step{RunID: r.ID, Repeat: 1, Index: i, Users: i + 1, TPM: v, NOPM: v * 0.45}
			if err := st.AddStep(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusComplete, time.Now()); err != nil {
			t.Fatal(err)
		}
		return *r
	}
	host := map[string]string{"host.name": "db1", "setting.shared_buffers": "128MB", "rightsize.commit": "abc"}
	flags := func(label, dur, cpus string) map[string]string {
		return map[string]string{"label": label, "duration": dur, "cpus": cpus, "set": "synchronous_commit=off"}
	}
	a := add("a", flags("a", "20s", ""), host, 100, 200)
	add("b", flags("b", "60s", ""), map[string]string{"host.name": "db1", "setting.shared_buffers": "128MB", "rightsize.commit": "def"}, 110, 220)
	add("c", flags("c", "20s", ""), host, 90, 190)
	capped := add("capped", flags("capped", "20s", "0.5"), host, 50, 100)
	add("other host", flags("d", "20s", ""), map[string]string{"host.name": "db2", "setting.shared_buffers": "128MB"}, 300, 300)
	d, err := Measure(ctx, st, a)
	if err != nil {
		t.Fatal(err)
	}
	if !d.TPM.Measured() || d.TPM.Runs != 3 || math.Abs(d.TPM.CV-0.0884410656) > 1e-9 || math.Abs(d.NOPM.CV-d.TPM.CV) > 1e-9 || d.P90.Measured() {
		t.Errorf("drifts %+v, want TPM and NOPM CV 0.0884411 over 3 runs, p90 not measured", d)
	}
	if d, err := Measure(ctx, st, capped); err != nil || d.TPM.Measured() {
		t.Errorf("capped run's drifts %+v (%v), want the default: one run of its configuration", d, err)
	}
}

// A fit's candidate runs carry no command line of their own: their
// history is the runs that recorded the same configuration (RecordedKey),
// whatever their flags, and only those started before the fit
// (MeasureBefore: a replay judges as the fit did, and the fit's own runs,
// judged by their own spread, do not count twice). Runs at 100, 110 and
// 90 TPM (CV 0.1: standard deviation 10 around 100) precede the fit; the
// fit's own run at 500, one started after it at 10 and one with other caps
// recorded add nothing.
func TestMeasureBefore(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	at := func(s int) time.Time { return time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC) }
	add := func(flags map[string]string, caps string, started time.Time, tpm float64) store.Run {
		env := map[string]string{"host.name": "db1", "caps.asked": caps, "rightsize.commit": "abc"}
		r := &store.Run{Source: store.SourceRightsize, Target: "embedded", Users: []int{4}, Repeats: 1, Flags: flags, Env: env, StartedAt: started}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := st.AddStep(ctx, &store.Step{RunID: r.ID, Repeat: 1, Users: 4, TPM: tpm, NOPM: tpm * 0.45}); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusComplete, started.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		return *r
	}
	add(map[string]string{"cpus": "0.5", "users": "4", "label": "calibrate-1"}, "cpus=0.5", at(1), 100) // rightsize calibrate --cpus 0.5
	add(map[string]string{"cpus": "0.5", "users": "4", "label": "calibrate-2"}, "cpus=0.5", at(2), 110)
	add(map[string]string{"fit": "f1", "fit.candidate": "cpus 0.5"}, "cpus=0.5", at(3), 90) // an earlier fit
	judged := add(map[string]string{"fit": "f2", "fit.candidate": "cpus 0.5"}, "cpus=0.5", at(5), 500)
	add(map[string]string{"fit": "f3", "fit.candidate": "cpus 0.5"}, "cpus=0.5", at(6), 10) // later
	add(map[string]string{"fit": "f2", "fit.candidate": "cpus 1"}, "cpus=1", at(4), 300)    // other caps
	// fit f2 started at 4
	d, err := MeasureBefore(ctx, st, judged, at(4))
	if err != nil {
		t.Fatal(err)
	}
	if !d.TPM.Measured() || d.TPM.Runs != 3 || math.Abs(d.TPM.CV-0.1) > 1e-9 {
		t.Errorf("drift %+v, want CV 0.1 over the 3 runs before the fit", d.TPM)
	}
	if ConfigKey(judged) == ConfigKey(store.Run{Source: judged.Source, Target: judged.Target, Env: judged.Env, Flags: map[string]string{"cpus": "0.5"}}) {
		t.Errorf("ConfigKey ignores flags; only RecordedKey should")
	}
}

// TestFiguresOf: a pgbench workload's run is judged on its TPM's drift,
// a TPC-C run on its NOPM's.
func TestFiguresOf(t *testing.T) {
	f := Figures{TPM: steady.Drift{CV: 0.05, Runs: 3, DF: 2}, NOPM: steady.Drift{CV: 0.08, Runs: 3, DF: 2}}
	if got := f.Of(store.Run{}); got != f.NOPM {
		t.Errorf("TPC-C run: %+v, want NOPM's %+v", got, f.NOPM)
	}
	if got := f.Of(store.Run{Env: map[string]string{store.EnvWorkload: "tpcb"}}); got != f.TPM {
		t.Errorf("tpcb run: %+v, want TPM's %+v", got, f.TPM)
	}
}
