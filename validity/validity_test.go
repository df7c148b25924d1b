package validity

import (
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

// compliant is a step that meets every rule: 40 users on 4 warehouses, 2 h, 10 000 transactions in
// the 23-card mix, 1 % rollbacks, 1 % remote lines, 15 % remote payments.
func compliant() (*store.Run, *store.Step) {
	run := &store.Run{Warehouses: 4, KeyingThinking: true, Isolation: "spec"}
	start := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s := &store.Step{Users: 40, MeasureStart: start, MeasureEnd: start.Add(2 * time.Hour),
		OrderLines: 43480, RemoteOrderLines: 435, RemotePayments: 652, SkippedDeliveries: 0,
		Txn: []store.TxnSummary{
			{Type: "new_order", Txn: figures.Txn{Count: 4348, Rollbacks: 43, P90Ms: 40}},
			{Type: "payment", Txn: figures.Txn{Count: 4348, P90Ms: 30}},
			{Type: "order_status", Txn: figures.Txn{Count: 435, P90Ms: 10}},
			{Type: "delivery", Txn: figures.Txn{Count: 435, P90Ms: 90}},
			{Type: "stock_level", Txn: figures.Txn{Count: 434, P90Ms: 15}},
		}}
	return run, s
}

func txn(s *store.Step, ty string) *store.TxnSummary {
	for i := range s.Txn {
		if s.Txn[i].Type == ty {
			return &s.Txn[i]
		}
	}
	panic(ty)
}

func TestStep(t *testing.T) {
	run, s := compliant()
	if v := Step(run, s); !v.Valid || len(v.Violations) != 0 {
		t.Fatalf("compliant step judged %+v", v)
	}
	for _, c := range []struct {
		name   string
		break_ func(*store.Run, *store.Step)
		want   string
	}{
		{"mix", func(_ *store.Run, s *store.Step) { txn(s, "payment").Count, s.RemotePayments = 4200, 630 }, "mix: payment"},
		{"order status share", func(_ *store.Run, s *store.Step) { txn(s, "order_status").Count = 300 }, "mix: order_status"},
		{"rollbacks", func(_ *store.Run, s *store.Step) { txn(s, "new_order").Rollbacks = 30 }, "New-Order rollbacks 0.69 %"},
		{"remote lines", func(_ *store.Run, s *store.Step) { s.RemoteOrderLines = 300 }, "remote order lines"},
		{"remote payments", func(_ *store.Run, s *store.Step) { s.RemotePayments = 400 }, "remote payments"},
		{"skipped", func(_ *store.Run, s *store.Step) { s.SkippedDeliveries = 5 }, "skipped deliveries: 5 districts in 435"},
		{"p90", func(_ *store.Run, s *store.Step) { txn(s, "new_order").P90Ms = 5200 }, "new_order 90th percentile 5.2s"},
		{"stock level p90", func(_ *store.Run, s *store.Step) { txn(s, "stock_level").P90Ms = 21000 }, "stock_level 90th percentile"},
		{"isolation", func(r *store.Run, _ *store.Step) { r.Isolation = "read-committed" }, "isolation read-committed is below level 3"},
		{"isolation unknown", func(r *store.Run, _ *store.Step) { r.Isolation = "" }, "isolation not recorded"},
		{"no think time", func(r *store.Run, _ *store.Step) { r.KeyingThinking = false }, "no keying or think time"},
		{"terminals", func(_ *store.Run, s *store.Step) { s.Users = 32 }, "32 users on 4 warehouses: TPC-C drives 10 terminals per warehouse (40)"},
		{"interval", func(_ *store.Run, s *store.Step) { s.MeasureEnd = s.MeasureStart.Add(time.Minute) }, "measurement interval 1m0s"},
		{"partial", func(_ *store.Run, s *store.Step) { s.Partial = true }, "interrupted"},
		{"deferred Deliveries not complete", func(_ *store.Run, s *store.Step) {
			s.Txn = append(s.Txn, store.TxnSummary{Type: store.DeferredDeliveryType, Txn: figures.Txn{Count: 380, Errors: 55, P90Ms: 900}})
		}, "deferred Delivery: 55 of 435 queued did not complete"},
		{"deferred Deliveries late", func(_ *store.Run, s *store.Step) {
			s.Txn = append(s.Txn, store.TxnSummary{Type: store.DeferredDeliveryType, Txn: figures.Txn{Count: 435, P90Ms: 81000}})
		}, "deferred Delivery 90th percentile 1m21s from queueing, above 1m20s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, s := compliant()
			c.break_(run, s)
			v := Step(run, s)
			if v.Valid || len(v.Violations) != 1 || !strings.Contains(v.Violations[0], c.want) {
				t.Fatalf("verdict %+v, want one violation containing %q", v, c.want)
			}
		})
	}
	// deferred Deliveries on time are not counted in the mix
	run, s = compliant()
	s.Txn = append(s.Txn, store.TxnSummary{Type: store.DeferredDeliveryType, Txn: figures.Txn{Count: 435, Errors: 10, P90Ms: 2500}})
	if v := Step(run, s); !v.Valid {
		t.Fatalf("deferred Deliveries on time: %+v", v)
	}
	// one warehouse: no remote shares to judge
	run, s = compliant()
	run.Warehouses, s.Users, s.RemoteOrderLines, s.RemotePayments = 1, 10, 0, 0
	if v := Step(run, s); !v.Valid {
		t.Fatalf("one warehouse: %+v", v)
	}
	s.Users = 4
	if v := Step(run, s); len(v.Violations) != 1 || !strings.HasPrefix(v.Violations[0], "4 users on 1 warehouse: ") {
		t.Fatalf("4 users on one warehouse: %+v", v)
	}
}
