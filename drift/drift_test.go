package drift

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/storetest"
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
