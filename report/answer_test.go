package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

func TestWriteStepEndings(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	step := func(repeat int, tpm float64, ramp, how string) store.Step {
		return store.Step{Repeat: repeat, Users: 4, Start: t0, MeasureStart: t0.Add(23 * time.Second), MeasureEnd: t0.Add(64 * time.Second),
			TPM: tpm, NOPM: tpm * 0.45, RampupEnd: ramp, RampupNote: "steady: MSER-5 truncation at 10 s", MeasureEndHow: how,
			PrecisionPct: 1.9, TPMCIHalf: tpm * 0.019, NOPMCIHalf: tpm * 0.45 * 0.019, Confidence: 0.95}
	}
	for _, tc := range []struct {
		name  string
		steps []store.Step
		run   store.Run
		want  []string
		none  bool
	}{
		{"auto, two repeats", []store.Step{step(1, 10000, "steady", "precision"), step(2, 10200, "max", "max")},
			store.Run{RepeatEnd: "agreed after 2 repeats: largest CV 1.4 % ≤ 5.0 %"},
			[]string{"how each step ended", "23 s", "steady", "41 s", "precision", "±1.9 %", "10,000 ± 190", "across repeats", "10,100 ± ", "agreed after 2"}, false},
		{"stored before schema 4", []store.Step{{Repeat: 1, Users: 1, TPM: 5}}, store.Run{}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteStepEndings(&b, tc.run, tc.steps)
			if tc.none != (b.Len() == 0) {
				t.Fatalf("printed %q", b.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestComparisonVerdicts(t *testing.T) {
	agg := func(mean, half float64) *analysis.StepAggregate {
		return &analysis.StepAggregate{Users: 1, TPMCI: steady.Interval{Mean: mean, Half: half, N: 3, Confidence: 0.95}}
	}
	for _, tc := range []struct {
		a, b *analysis.StepAggregate
		want string
	}{
		{agg(1000, 20), agg(1100, 20), "B is better"},
		{agg(1100, 20), agg(1000, 20), "A is better"},
		{agg(1000, 80), agg(1050, 80), "not distinguishable at this precision"},
	} {
		var b bytes.Buffer
		c := &Comparison{Rows: []ComparisonRow{{Users: 1, A: tc.a, B: tc.b}}}
		c.writeVerdicts(&b)
		if !strings.Contains(b.String(), tc.want) || !strings.Contains(b.String(), "95 % intervals") {
			t.Errorf("A %+v B %+v: %q, want %q", tc.a.TPMCI, tc.b.TPMCI, b.String(), tc.want)
		}
	}
}
