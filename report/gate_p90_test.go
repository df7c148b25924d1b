package report

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

// window is a stored New-Order window at offset s seconds holding the
// latencies 1..10 × step µs (its p90 is 9 × step µs: exact below 2,048).
func window(t *testing.T, s int, step int64) store.Window {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for i := int64(1); i <= 10; i++ {
		if err := h.RecordValue(i * step); err != nil {
			t.Fatal(err)
		}
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return store.Window{Offset: time.Duration(s) * time.Second, Type: "new_order", Hist: b}
}

// p90Step is a single-repeat step measured from 10 s to 40 s whose
// measured windows (at 10, 20 and 30 s) hold 1..10 × steps[i] µs, with a
// ramp-up window at 0 s of 90 ms left out.
func p90Step(t *testing.T, steps ...int64) store.Step {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := store.Step{Users: 1, Start: start, MeasureStart: start.Add(10 * time.Second), MeasureEnd: start.Add(40 * time.Second),
		TPM: 1000, NOPM: 450, TPMCIHalf: 10, NOPMCIHalf: 4.5, Confidence: 0.95,
		Txn:     []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 30, P90Ms: float64(9*steps[0]) / 1000}}},
		Windows: []store.Window{window(t, 0, 10_000)}}
	for i, st := range steps {
		s.Windows = append(s.Windows, window(t, 10*(i+1), st))
	}
	return s
}

// The windows' p90s 0.9, 1.8 and 1.35 ms: mean 1.35, s 0.45, and
// t(0.975, 2) = 4.302653 (scipy) gives ± 4.302653 × 0.45/√3 = ± 1.117862.
func TestWindowPercentile(t *testing.T) {
	iv, ok := WindowPercentile(p90Step(t, 100, 200, 150), "new_order", 90, 0.95)
	if !ok || iv.N != 3 || math.Abs(iv.Mean-1.35) > 1e-9 || math.Abs(iv.Half-1.1178620) > 1e-6 {
		t.Fatalf("window p90 %+v ok %v, want 1.35 ± 1.117862 over 3 windows", iv, ok)
	}
	if iv, ok := WindowPercentile(p90Step(t, 100), "new_order", 90, 0.95); ok {
		t.Errorf("one measured window gave an interval %+v", iv)
	}
}

// A p90 twice as high with the windows' intervals separated (A 0.9 ±
// 0.022 ms, B 1.8 ± 0.045, each widened by the default 10 % drift to ±
// 0.178 and ± 0.356) fails the gate; without windows the same p90 is not
// decided and passes.
func TestGateP90Windows(t *testing.T) {
	st := storetest.Open(t)
	th := Thresholds{MaxRegression: NotGated, MaxLatencyRegression: 0.10}
	for _, c := range []struct {
		name     string
		windows  bool
		wantPass bool
		want     string
	}{
		{"windows", true, false, "B 1.80 ± 0.356 ms vs A 0.900 ± 0.178 ms (2.000x ± 0.559): REGRESSION, B is 100.0 % higher, more than the 10 % allowed, the intervals separated"},
		{"no windows", false, true, "not decided (B 100.0 % higher); " + NoIntervalNote},
	} {
		a, b := p90Step(t, 100, 101, 99), p90Step(t, 200, 202, 198)
		if !c.windows {
			a.Windows, b.Windows = nil, nil
		}
		ra, rb := storedStep(t, st, "A "+c.name, a), storedStep(t, st, "B "+c.name, b)
		v := Compare(ra, rb).Verdicts(th)
		lines := strings.Join(append(v.Gate.Failures, v.Gate.Passes...), "\n")
		if v.Gate.Passed != c.wantPass || !strings.Contains(lines, c.want) {
			t.Errorf("%s: gate passed %v, want %v saying %q:\n%s", c.name, v.Gate.Passed, c.wantPass, c.want, lines)
		}
		// p99 is judged, not gated: windows' p99 1.00, 1.01, 0.99 ms give
		// A 1.00 ± 4.302653 × 0.01/√3 = ± 0.02484 within
		f := v.Steps[0].Figures
		p99 := f[len(f)-1]
		wantIv, wantVerdict := FromWindows, Worse
		if !c.windows {
			wantIv, wantVerdict = NoInterval, NotDistinguishable
		}
		if p99.Figure != FigureP99 || p99.MaxRegressionPct != nil || p99.A.Interval != wantIv || p99.Verdict != wantVerdict ||
			c.windows && math.Abs(p99.A.Within-0.024841) > 1e-5 {
			t.Errorf("%s: p99 %+v, want %s, interval %q, verdict %q, not gated", c.name, p99, FigureP99, wantIv, wantVerdict)
		}
	}
}

// storedStep stores a run of the one step and loads it as reports do.
func storedStep(t *testing.T, st *store.Store, label string, s store.Step) RunData {
	t.Helper()
	ctx := context.Background()
	r := &store.Run{Label: label, Users: []int{s.Users}, Repeats: 1, StartedAt: time.Date(2026, 1, 1, 0, 0, len(label), 0, time.UTC)}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	s.RunID, s.Repeat = r.ID, 1
	if err := st.AddStep(ctx, &s); err != nil {
		t.Fatal(err)
	}
	return finishAndLoad(t, st, r.ID)
}
