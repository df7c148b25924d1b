package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

// simpleRun stores a run whose steps have the given TPM per users count,
// one value per repeat (NOPM is 45 % of TPM), and returns it loaded.
func simpleRun(t *testing.T, st *store.Store, label string, tpm map[int][]float64, users []int) RunData {
	t.Helper()
	ctx := context.Background()
	reps := 0
	for _, v := range tpm {
		reps = max(reps, len(v))
	}
	r := &store.Run{Label: label, Users: users, Repeats: reps, StartedAt: time.Date(2025, 1, 1, 0, 0, len(label), 0, time.UTC)}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for rep := 1; rep <= reps; rep++ {
		for idx, u := range users {
			if rep > len(tpm[u]) {
				continue
			}
			v := tpm[u][rep-1]
			s := &store.Step{RunID: r.ID, Repeat: rep, Index: idx, Users: u, TPM: v, NOPM: v * 0.45, TPMPerUser: v / float64(u)}
			if err := st.AddStep(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	return finishAndLoad(t, st, r.ID)
}

func TestCompare(t *testing.T) {
	st := storetest.Open(t)
	type run struct {
		users []int
		tpm   map[int][]float64
	}
	for _, c := range []struct {
		name       string
		a, b       run
		wantRatios map[int]string // users -> TPM ratio cell ("-" when not comparable)
		wantAvgA   float64
		wantAvgB   float64
		wantAvg    string
		wantSame   bool
		wantText   []string
	}{
		{
			name:       "same steps",
			a:          run{[]int{1, 2}, map[int][]float64{1: {100}, 2: {200}}},
			b:          run{[]int{1, 2}, map[int][]float64{1: {150}, 2: {300}}},
			wantRatios: map[int]string{1: "1.50x TPM", 2: "1.50x TPM"},
			wantAvgA:   150, wantAvgB: 225, wantAvg: "B 225 vs A 150: 1.50x", wantSame: true,
			wantText: []string{"average TPM over all steps: B 225 vs A 150: 1.50x", "average NOPM over all steps: B 101 vs A 68: 1.50x"},
		},
		{
			name:       "repeats are averaged",
			a:          run{[]int{1, 2}, map[int][]float64{1: {90, 110}, 2: {190, 210}}},
			b:          run{[]int{1, 2}, map[int][]float64{1: {123}, 2: {246}}},
			wantRatios: map[int]string{1: "1.23x TPM", 2: "1.23x TPM"},
			wantAvgA:   150, wantAvgB: 184.5, wantAvg: "B 185 vs A 150: 1.23x", wantSame: true,
		},
		{
			name:       "Study A: fewer cores on faster storage",
			a:          run{[]int{1, 2}, map[int][]float64{1: {197532 - 50000}, 2: {197532 + 50000}}},
			b:          run{[]int{1, 2}, map[int][]float64{1: {243714 - 60000}, 2: {243714 + 60000}}},
			wantRatios: map[int]string{1: "1.25x TPM", 2: "1.23x TPM"},
			wantAvgA:   197532, wantAvgB: 243714, wantAvg: "B 243,714 vs A 197,532: 1.23x", wantSame: true,
		},
		{
			name:       "different users: averages over the common steps",
			a:          run{[]int{1, 2, 4}, map[int][]float64{1: {100}, 2: {200}, 4: {400}}},
			b:          run{[]int{1, 2, 8}, map[int][]float64{1: {50}, 2: {100}, 8: {800}}},
			wantRatios: map[int]string{1: "0.50x TPM", 2: "0.50x TPM", 4: "-", 8: "-"},
			wantAvgA:   150, wantAvgB: 75, wantAvg: "B 75 vs A 150: 0.50x", wantSame: false,
			wantText: []string{"over the steps both runs measured (users 1,2)"},
		},
		{
			name:       "zero baseline",
			a:          run{[]int{1}, map[int][]float64{1: {0}}},
			b:          run{[]int{1}, map[int][]float64{1: {10}}},
			wantRatios: map[int]string{1: "-"},
			wantAvgA:   0, wantAvgB: 10, wantAvg: "B 10 vs A 0: -", wantSame: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := simpleRun(t, st, "A", c.a.tpm, c.a.users)
			b := simpleRun(t, st, "B", c.b.tpm, c.b.users)
			cmp := Compare(a, b)
			if cmp.SameSteps != c.wantSame {
				t.Errorf("SameSteps = %v", cmp.SameSteps)
			}
			if !near(cmp.AvgTPMA, c.wantAvgA) || !near(cmp.AvgTPMB, c.wantAvgB) {
				t.Errorf("averages %v, %v; want %v, %v", cmp.AvgTPMA, cmp.AvgTPMB, c.wantAvgA, c.wantAvgB)
			}
			if got := cmp.AverageLine(); got != c.wantAvg {
				t.Errorf("AverageLine = %q, want %q", got, c.wantAvg)
			}
			var buf bytes.Buffer
			cmp.Write(&buf)
			out := buf.String()
			if len(cmp.Rows) != len(c.wantRatios) {
				t.Fatalf("%d rows, want %d:\n%s", len(cmp.Rows), len(c.wantRatios), out)
			}
			for _, r := range cmp.Rows {
				want := c.wantRatios[r.Users]
				got := "-"
				if x, ok := r.Ratio(func(a *analysis.StepAggregate) float64 { return a.TPM.Mean }); ok {
					got = fmtRatio(1, x) + " TPM"
				}
				if got != want {
					t.Errorf("users %d: ratio %q, want %q", r.Users, got, want)
				}
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			for _, w := range c.wantText {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
