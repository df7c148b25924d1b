package analysis

import (
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

func histOf(t testing.TB, us ...int64) store.HdrHist {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range us {
		_ = h.RecordValue(v)
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeWorkerSteps(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	a := &store.Step{Repeat: 1, Users: 2, Start: t0, MeasureStart: t0.Add(time.Second), MeasureEnd: t0.Add(3 * time.Second), TPM: 600, NOPM: 270,
		Procs: figures.Procs{DriverCPUPct: 10}, DriverCPUUsPerTxn: 40, Reconnects: 1, LateTxns: 2, SkippedTxns: 5,
		Txn:     []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 3}, Hist: histOf(t, 1000, 2000, 3000)}},
		Seconds: []store.Second{{Offset: 0, Txn: 5, NewOrders: 2}, {Offset: 1, Txn: 6, NewOrders: 3}, {Offset: 2, Txn: 7, NewOrders: 3}},
		Windows: []store.Window{{Offset: 0, Type: "new_order", Hist: histOf(t, 1000)}}}
	b := &store.Step{Repeat: 1, Users: 1, Start: t0.Add(1100 * time.Millisecond), MeasureStart: t0.Add(2 * time.Second), MeasureEnd: t0.Add(4 * time.Second),
		TPM: 300, NOPM: 120, Procs: figures.Procs{DriverCPUPct: 5}, DriverCPUUsPerTxn: 80, Partial: true, LateTxns: 1,
		Txn:     []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 1}, Hist: histOf(t, 9000)}},
		Seconds: []store.Second{{Offset: 0, Txn: 1, NewOrders: 1}, {Offset: 1, Txn: 2, NewOrders: 0}},
		Windows: []store.Window{{Offset: 0, Type: "new_order", Hist: histOf(t, 9000)}}}
	m := MergeWorkerSteps("shared", []*store.Step{a, b})
	checks := []struct {
		name      string
		got, want any
	}{
		{"run id", m.RunID, "shared"},
		{"users", m.Users, 3},
		{"TPM", m.TPM, 900.0},
		{"NOPM", m.NOPM, 390.0},
		{"TPM per user", m.TPMPerUser, 300.0},
		{"driver CPU %", m.DriverCPUPct, 15.0},
		{"driver µs per txn (count-weighted)", m.DriverCPUUsPerTxn, (40.0*3 + 80) / 4},
		{"partial", m.Partial, true},
		{"reconnects", m.Reconnects, int64(1)},
		{"late, summed", m.LateTxns, int64(3)},
		{"skipped, summed", m.SkippedTxns, int64(5)},
		{"count", m.Txn[0].Count, int64(4)},
		{"max from the merged histogram", m.Txn[0].MaxMs > 8.99 && m.Txn[0].MaxMs < 9.01, true},
		{"measured from the first start", m.MeasureStart, t0.Add(time.Second)},
		{"to the last end", m.MeasureEnd, t0.Add(4 * time.Second)},
		{"seconds on the first worker's time base", len(m.Seconds), 3},
		{"second 1: a's second 1 and b's second 0", m.Seconds[1].Txn, int64(7)},
		{"second 2", m.Seconds[2].Txn, int64(9)},
		{"windows merged by offset and type", len(m.Windows), 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if h, err := decodeHist(m.Windows[0].Hist); err != nil || h.TotalCount() != 2 {
		t.Errorf("merged window holds %v values (%v), want 2", h, err)
	}
}
