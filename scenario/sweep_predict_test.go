package scenario

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

// A sweep's base takes the drift of its configuration's A/A history as it
// stood when the base ended, the base included: three runs at cpus 1
// measured 4000, 4400 and 3600 NOPM (CV 10 %, 2 degrees of freedom); a
// run at cpus 0.5 and one started after the base add nothing. A base
// with fewer than three such runs keeps the default (not measured).
func TestBaseDrift(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	at := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	add := func(cpus string, nopm float64) *store.Run {
		at = at.Add(time.Minute)
		r := &store.Run{Label: "sweep-x cpus=" + cpus, Source: store.SourceRightsize, Target: "embedded", Users: []int{8}, Repeats: 1,
			Env: map[string]string{"host.name": "db1", "caps.asked": `{"cpus":` + cpus + `}`}, StartedAt: at}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := st.AddStep(ctx, &store.Step{RunID: r.ID, Repeat: 1, Users: 8, TPM: nopm / 0.45, NOPM: nopm}); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusComplete, at.Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
		r, _, err := st.LoadRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := add("1", 4000)
	add("0.5", 2000)
	add("1", 4400)
	base := add("1", 3600)
	add("1", 9000) // after the base
	d, err := BaseDrift(ctx, st, base)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Measured() || math.Abs(d.CV-0.10) > 1e-9 || d.Runs != 3 || d.DF != 2 {
		t.Errorf("drift %+v, want CV 0.10 over 3 runs (2 degrees of freedom)", d)
	}
	if d, err = BaseDrift(ctx, st, first); err != nil || d.Measured() {
		t.Errorf("the first run's drift %+v (%v), want none measured", d, err)
	}
}
