package driver

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// TestPacerPoisson: the schedule's gaps are exponential with mean 1/rate
// (their mean and coefficient of variation, 1 for an exponential, within
// 2 % over 100,000 gaps), never negative, and the same for the same seed.
func TestPacerPoisson(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p, q := newPacer(1000, t0, 7), newPacer(1000, t0, 7)
	const n = 100_000
	prev := t0
	var sum, sq float64
	for range n {
		at := p.take()
		if at.Before(prev) {
			t.Fatalf("schedule went back: %v after %v", at, prev)
		}
		if q.take() != at {
			t.Fatal("the same seed gave another schedule")
		}
		g := at.Sub(prev).Seconds()
		sum, sq, prev = sum+g, sq+g*g, at
	}
	mean := sum / n
	cv := math.Sqrt(sq/n-mean*mean) / mean
	if math.Abs(mean-0.001)/0.001 > 0.02 || math.Abs(cv-1) > 0.02 {
		t.Errorf("gaps: mean %.6f s (want 0.001), CV %.3f (want 1)", mean, cv)
	}
}

// TestPacedWorkloadStep: a step paced at a rate its users can keep
// completes about rate × duration transactions with a short schedule lag;
// at a rate far beyond them the users run back to back, the schedule
// falls behind and the lag grows. A TPC-C step refuses a rate.
func TestPacedWorkloadStep(t *testing.T) {
	wl := cycleWorkload{kinds: []string{"a", "b", "c"}, figure: -1}
	step := func(rate float64) *StepResult {
		res, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 2, Seed: 3,
			Spec: Spec{Rampup: 200 * time.Millisecond, Duration: 2 * time.Second, Workload: wl, Rate: rate}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := step(200)
	tps := float64(res.Completed()+res.Kinds[1].Errors) / res.Measured().Seconds()
	if math.Abs(tps-200)/200 > 0.2 || res.ScheduleLag < 0 || res.ScheduleLagMax < res.ScheduleLag || res.ScheduleLag > 20*time.Millisecond {
		t.Errorf("at 200/s: %.1f/s, schedule lag %v (max %v); want about 200/s and a short lag", tps, res.ScheduleLag, res.ScheduleLagMax)
	}
	over := step(1e6)
	if tps := float64(over.Completed()) / over.Measured().Seconds(); tps > 0.5e6 || over.ScheduleLag < 100*time.Millisecond {
		t.Errorf("at 10^6/s: %.0f/s, schedule lag %v; want the schedule behind, by a growing lag", tps, over.ScheduleLag)
	}
	if unpaced := step(0); unpaced.ScheduleLag != 0 || unpaced.ScheduleLagMax != 0 {
		t.Errorf("unpaced step: schedule lag %v (max %v), want none", unpaced.ScheduleLag, unpaced.ScheduleLagMax)
	}
	if _, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 1, Spec: Spec{Duration: time.Second, Rate: 10}}); err == nil ||
		!strings.Contains(err.Error(), "--rate paces a pgbench workload") {
		t.Errorf("TPC-C with a rate: %v, want it refused", err)
	}
}

// slowWorkload's users take a millisecond a transaction.
type slowWorkload struct{ cycleWorkload }

func (w slowWorkload) NewUser(context.Context, Target, UserConfig) (User, error) {
	return &slowUser{}, nil
}

type slowUser struct{}

func (*slowUser) Run(ctx context.Context) (int, int, error) {
	return 0, 1, Sleep(ctx, time.Millisecond)
}
func (*slowUser) Close(context.Context) error { return nil }

// TestLatencyLimit: as pgbench -L, a transaction over the limit counts
// late (every one of 1 ms transactions against 500 µs, none against 1 s);
// paced beyond what the users can do, one already further behind its
// schedule than the limit is skipped, not sent; TPC-C refuses a limit.
func TestLatencyLimit(t *testing.T) {
	wl := slowWorkload{cycleWorkload{kinds: []string{"a"}, figure: -1}}
	step := func(rate float64, limit time.Duration) *StepResult {
		res, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 1, Seed: 3,
			Spec: Spec{Rampup: 100 * time.Millisecond, Duration: time.Second, Workload: wl, Rate: rate, LatencyLimit: limit}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := step(0, 500*time.Microsecond); res.Completed() == 0 || res.Late != res.Completed() || res.Skipped != 0 {
		t.Errorf("1 ms transactions against 500µs: %d late, %d skipped of %d; want every one late, none skipped", res.Late, res.Skipped, res.Completed())
	}
	if res := step(0, time.Second); res.Late != 0 || res.Skipped != 0 {
		t.Errorf("against 1s: %d late, %d skipped; want none", res.Late, res.Skipped)
	}
	// 5,000 a second asked of one user who does at most 1,000: most
	// transactions are behind by more than 20 ms and skipped, and the lag
	// stays near the limit (unlimited, it grows to about 0.9 s in 1.1 s;
	// 200 ms leaves room for a busy machine's preemption)
	res := step(5000, 20*time.Millisecond)
	if res.Skipped < 2*res.Completed() || res.ScheduleLagMax > 200*time.Millisecond {
		t.Errorf("paced beyond the user: %d skipped, %d completed, max lag %v; want most skipped and the lag held near the limit", res.Skipped, res.Completed(), res.ScheduleLagMax)
	}
	if _, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 1, Spec: Spec{Duration: time.Second, LatencyLimit: time.Second}}); err == nil ||
		!strings.Contains(err.Error(), "--latency-limit is a pgbench workload's") {
		t.Errorf("TPC-C with a latency limit: %v, want it refused", err)
	}
}
