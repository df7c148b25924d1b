package store

import "testing"

func TestMeritAll(t *testing.T) {
	a := TxnSummary{Type: "a", Hist: hist(t, 1000, 1000)}
	a.Count, a.Errors, a.P90Ms = 1000, 1, 1.9
	b := TxnSummary{Type: "b", Hist: hist(t, 3000, 100_000)}
	b.Count, b.Retries, b.P90Ms = 3000, 2, 100.9
	idle := TxnSummary{Type: "idle"}
	all := Merit{}
	tests := []struct {
		name          string
		txns          []TxnSummary
		count, errs   int64
		retries       int64
		p90Lo, p90Hi  float64
		counted, none bool
	}{
		{name: "two scripts", txns: []TxnSummary{a, b}, count: 4000, errs: 1, retries: 2, p90Lo: 100, p90Hi: 102, counted: true},
		{name: "one script", txns: []TxnSummary{a}, count: 1000, errs: 1, p90Lo: 1.8, p90Hi: 2.0, counted: true},
		{name: "no completion", txns: []TxnSummary{idle}},
		{name: "nothing", none: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := all.Of(tc.txns)
			if tc.none {
				if got != nil {
					t.Fatalf("Of(nothing) = %+v, want nil", got)
				}
				return
			}
			if got.Count != tc.count || got.Errors != tc.errs || got.Retries != tc.retries {
				t.Errorf("count %d errors %d retries %d, want %d %d %d", got.Count, got.Errors, got.Retries, tc.count, tc.errs, tc.retries)
			}
			if tc.count > 0 && (got.P90Ms < tc.p90Lo || got.P90Ms > tc.p90Hi) {
				t.Errorf("p90 %.2f ms, want in [%.1f, %.1f]", got.P90Ms, tc.p90Lo, tc.p90Hi)
			}
			if (all.Counted(tc.txns) != nil) != tc.counted {
				t.Errorf("Counted non-nil = %v, want %v", !tc.counted, tc.counted)
			}
		})
	}
	if got := (Merit{Txn: "b"}).Of([]TxnSummary{a, b}); got == nil || got.Count != 3000 {
		t.Errorf("Merit{b}.Of = %+v, want b's summary", got)
	}
}
