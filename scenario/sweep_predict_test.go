package scenario

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
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

// A sweep's base takes the ratios of CPU per transaction between whole
// cores that its host measured before it, in earlier sweeps and fits of
// its workload and mode: sweep a (2 → 1 ×0.95; 0.5 is below a core), fit
// b's alike pair (×1.10; its run at another memory is not alike), sweep c
// (×1.03). Another host's sweep, another mode's, a failed run, the base's
// own sweep and a sweep started after the base teach nothing.
func TestBaseGrowth(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	at := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	add := func(group, cpus, memory string, cpuUs float64, env map[string]string, status string) *store.Run {
		at = at.Add(time.Minute)
		caps := `{"cpus":` + cpus
		if memory != "" {
			caps += `,"memory_bytes":` + memory
		}
		e := map[string]string{"host.name": "db1", "host.logical_cpus": "2", "caps.asked": caps + "}"}
		for k, v := range env {
			e[k] = v
		}
		kind, id, _ := strings.Cut(group, " ")
		r := &store.Run{Label: group + " cpus=" + cpus, Source: store.SourceRightsize, Target: "embedded", Mode: "procedures", Users: []int{8}, Repeats: 1,
			Env: e, Flags: map[string]string{kind: id}, StartedAt: at}
		if env["mode"] != "" {
			r.Mode = env["mode"]
		}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := st.AddStep(ctx, &store.Step{RunID: r.ID, Repeat: 1, Users: 8, TPM: 9000, NOPM: 4000, ServerCPUUsPerTxn: cpuUs}); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, r.ID, status, at.Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
		r, _, err := st.LoadRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ok := store.StatusComplete
	add("sweep a", "2", "", 400, nil, ok)
	add("sweep a", "1", "", 380, nil, ok)
	add("sweep a", "0.5", "", 500, nil, ok)
	add("fit b", "2", "1073741824", 400, nil, ok)
	add("fit b", "1", "1073741824", 440, nil, ok)
	add("fit b", "1", "536870912", 600, nil, ok)
	add("sweep x", "2", "", 400, map[string]string{"host.name": "db2"}, ok)
	add("sweep x", "1", "", 800, map[string]string{"host.name": "db2"}, ok)
	add("sweep y", "2", "", 400, map[string]string{"mode": "statements"}, ok)
	add("sweep y", "1", "", 800, map[string]string{"mode": "statements"}, ok)
	add("sweep z", "2", "", 400, nil, ok)
	add("sweep z", "1", "", 800, nil, store.StatusFailed)
	add("sweep c", "2", "", 400, nil, ok)
	add("sweep c", "1", "", 412, nil, ok)
	base := add("sweep d", "2", "", 400, nil, ok)
	add("sweep d", "1", "", 800, nil, ok)
	add("sweep e", "2", "", 400, nil, ok)
	add("sweep e", "1", "", 800, nil, ok)
	rs, err := BaseGrowth(ctx, st, base)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%s %g→%g ×%.2f", r.Source, r.From, r.To, r.Ratio))
	}
	want := []string{"sweep c 2→1 ×1.03", "fit b 2→1 ×1.10", "sweep a 2→1 ×0.95"}
	if !slices.Equal(got, want) {
		t.Errorf("growth %q, want %q", got, want)
	}
}
