package tpcc

import (
	"crypto/sha256"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

var loadTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func checksum(t *testing.T, cfg GenConfig, table Table, w int) (string, int) {
	t.Helper()
	h := sha256.New()
	src := Generate(cfg, table, w)
	n := 0
	for src.Next() {
		row, _ := src.Values()
		fmt.Fprintln(h, row...)
		n++
	}
	return fmt.Sprintf("%x", h.Sum(nil)), n
}

func TestGeneratorDeterministic(t *testing.T) {
	cfg := GenConfig{Seed: 42, LoadTime: loadTime, Constants: LoadConstants(42)}
	other := GenConfig{Seed: 43, LoadTime: loadTime, Constants: LoadConstants(43)}
	for _, table := range Tables {
		t.Run(string(table), func(t *testing.T) {
			a, n := checksum(t, cfg, table, 2)
			b, _ := checksum(t, cfg, table, 2)
			if a != b {
				t.Fatalf("same seed, different data")
			}
			if table != NewOrders { // NEW-ORDER has no random column
				if c, _ := checksum(t, other, table, 2); c == a {
					t.Fatalf("different seeds, same data")
				}
			}
			if table != OrderLine && int64(n) != InitialRows(table, 1) {
				t.Fatalf("%d rows, want %d", n, InitialRows(table, 1))
			}
		})
	}
}

func TestOrderLinesMatchOrderCounts(t *testing.T) {
	cfg := GenConfig{Seed: 7, LoadTime: loadTime, Constants: LoadConstants(7)}
	want := map[[2]int32]int32{}
	src := Generate(cfg, Orders, 1)
	customers := map[int32]map[int32]bool{}
	for src.Next() {
		r, _ := src.Values()
		d, o, c := r[1].(int32), r[0].(int32), r[3].(int32)
		want[[2]int32{d, o}] = r[6].(int32)
		if customers[d] == nil {
			customers[d] = map[int32]bool{}
		}
		customers[d][c] = true
		if (o < FirstUndeliveredOrder) != (r[5] != nil) {
			t.Fatalf("order %d: carrier %v", o, r[5])
		}
	}
	for d, cs := range customers {
		if len(cs) != CustomersPerDistrict {
			t.Fatalf("district %d: o_c_id is not a permutation (%d distinct)", d, len(cs))
		}
	}
	got := map[[2]int32]int32{}
	ol := Generate(cfg, OrderLine, 1)
	n := 0
	for ol.Next() {
		r, _ := ol.Values()
		got[[2]int32{r[1].(int32), r[0].(int32)}]++
		n++
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("order %v: %d lines, o_ol_cnt %d", k, got[k], v)
		}
	}
	if exp := InitialRows(OrderLine, 1); math.Abs(float64(n)-float64(exp)) > 0.02*float64(exp) {
		t.Fatalf("order lines %d, expected about %d", n, exp)
	}
}

func TestPopulationRates(t *testing.T) {
	cfg := GenConfig{Seed: 3, LoadTime: loadTime, Constants: LoadConstants(3)}
	count := func(table Table, col int, pred func(any) bool) float64 {
		src := Generate(cfg, table, 1)
		n, k := 0, 0
		for src.Next() {
			r, _ := src.Values()
			n++
			if pred(r[col]) {
				k++
			}
		}
		return float64(k) / float64(n)
	}
	orig := func(v any) bool { return strings.Contains(v.(string), "ORIGINAL") }
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"I_DATA ORIGINAL", count(Item, 4, orig), 0.10},
		{"S_DATA ORIGINAL", count(Stock, 16, orig), 0.10},
		{"C_CREDIT BC", count(Customer, 13, func(v any) bool { return v == "BC" }), 0.10},
	} {
		if math.Abs(c.got-c.want) > 0.01 {
			t.Errorf("%s: %.3f, want %.2f", c.name, c.got, c.want)
		}
	}
}

func TestStringRules(t *testing.T) {
	r := NewRand(1, 1)
	for range 10000 {
		a := r.AString(nil, 8, 16)
		if len(a) < 8 || len(a) > 16 {
			t.Fatalf("a-string length %d", len(a))
		}
		z := string(r.Zip(nil))
		if len(z) != 9 || !strings.HasSuffix(z, "11111") || strings.Trim(z[:4], "0123456789") != "" {
			t.Fatalf("zip %q", z)
		}
	}
	for n, want := range map[int]string{371: "PRICALLYOUGHT", 40: "BARPRESBAR", 0: "BARBARBAR", 999: "EINGEINGEING"} {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestNURand(t *testing.T) {
	r := NewRand(9, 9)
	const draws = 300000
	counts := make([]int, 3001)
	for range draws {
		v := r.NURand(ACID, 123, 1, 3000)
		if v < 1 || v > 3000 {
			t.Fatalf("NURand out of range: %d", v)
		}
		counts[v]++
	}
	// Non-uniform: the most popular ids are drawn far more often than the
	// uniform rate, yet every id is reachable.
	maxc, zero := 0, 0
	for _, c := range counts[1:] {
		maxc = max(maxc, c)
		if c == 0 {
			zero++
		}
	}
	if uniform := draws / 3000; maxc < 3*uniform {
		t.Errorf("NURand looks uniform: max %d vs uniform %d", maxc, uniform)
	}
	if zero > 3000/20 {
		t.Errorf("%d of 3000 ids never drawn", zero)
	}
	// The item range covers [1, 100000] including both ends over many draws.
	lo, hi := NumItems, 0
	for range 2000000 {
		v := r.NURand(AItem, 7911, 1, NumItems)
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo != 1 || hi != NumItems {
		t.Errorf("item range [%d, %d]", lo, hi)
	}
}

func TestRunConstantsDeltaRule(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		c := LoadConstants(seed).WithRunConstants(NewRand(seed, 5))
		if !ValidRunDelta(c.CLastLoad, c.CLastRun) {
			t.Fatalf("seed %d: load %d run %d", seed, c.CLastLoad, c.CLastRun)
		}
	}
	for _, c := range []struct {
		load, run int
		ok        bool
	}{{0, 65, true}, {0, 64, false}, {0, 96, false}, {200, 88, false}, {120, 0, false}, {119, 0, true}, {0, 120, false}} {
		if ValidRunDelta(c.load, c.run) != c.ok {
			t.Errorf("ValidRunDelta(%d, %d) != %v", c.load, c.run, c.ok)
		}
	}
}

func TestDeckMix(t *testing.T) {
	d := NewDeck(NewRand(1, 2))
	var counts [NumTxnTypes]int
	for range deckSize {
		counts[d.Deal()]++
	}
	if counts != DeckCards {
		t.Fatalf("one deck dealt %v", counts)
	}
	// every share is above the minimums of clause 5.2.3
	for ty, min := range map[TxnType]float64{PaymentTxn: 43, OrderStatusTxn: 4, DeliveryTxn: 4, StockLevelTxn: 4} {
		if share := 100 * float64(DeckCards[ty]) / deckSize; share <= min {
			t.Errorf("%s: %.2f %% of the deck, minimum %.0f %%", ty, share, min)
		}
	}
	// two passes are shuffled differently
	a, b := make([]TxnType, 4*deckSize), make([]TxnType, 4*deckSize)
	for i := range a {
		a[i] = d.Deal()
	}
	for i := range b {
		b[i] = d.Deal()
	}
	if fmt.Sprint(a) == fmt.Sprint(b) {
		t.Fatal("deck not reshuffled")
	}
}

func TestInputs(t *testing.T) {
	c := LoadConstants(1).WithRunConstants(NewRand(1, 1))
	g := NewInputs(NewRand(5, 5), c, 4, 2, 7)
	var no NewOrderInput
	rollbacks, remote, twice := 0, 0, 0
	const n = 20000
	for range n {
		g.NewOrder(&no)
		if no.WID != 2 || len(no.Lines) < 5 || len(no.Lines) > 15 {
			t.Fatalf("bad new order %+v", no)
		}
		seen := map[int32]bool{}
		numbers := map[int32]bool{}
		dup := false
		for i, l := range no.Lines {
			numbers[l.Number] = true
			if l.ItemID == InvalidItemID {
				if i != len(no.Lines)-1 {
					t.Fatal("invalid item not last")
				}
				rollbacks++
			}
			if i > 0 && l.ItemID != InvalidItemID && (l.SupplyWID < no.Lines[i-1].SupplyWID ||
				l.SupplyWID == no.Lines[i-1].SupplyWID && (l.ItemID < no.Lines[i-1].ItemID ||
					l.ItemID == no.Lines[i-1].ItemID && l.Number < no.Lines[i-1].Number)) {
				t.Fatal("lines not sorted by supply warehouse, item, line number")
			}
			dup = dup || seen[l.ItemID]
			seen[l.ItemID] = true
			if l.SupplyWID != 2 {
				remote++
			}
		}
		if len(numbers) != len(no.Lines) || numbers[0] || numbers[int32(len(no.Lines))+1] {
			t.Fatalf("OL_NUMBERs not 1..%d: %+v", len(no.Lines), no.Lines)
		}
		if dup {
			twice++
		}
	}
	// drawn independently, about 0.9 % of orders hold an item twice (2.4.1.5)
	if r := float64(twice) / n; r < 0.003 || r > 0.02 {
		t.Errorf("orders with an item twice: %.4f, want about 0.009", r)
	}
	if r := float64(rollbacks) / n; r < 0.005 || r > 0.015 {
		t.Errorf("rollback rate %.3f", r)
	}
	var sl StockLevelInput
	g.StockLevel(&sl)
	if sl.WID != 2 || sl.DID != 7 || sl.Threshold < 10 || sl.Threshold > 20 {
		t.Errorf("stock level %+v", sl)
	}
	var p PaymentInput
	byName := 0
	for range n {
		g.Payment(&p)
		if p.ByName {
			byName++
			if p.CLast == "" {
				t.Fatal("by name without name")
			}
		}
		if p.Amount < 1 || p.Amount > 5000 {
			t.Fatalf("amount %v", p.Amount)
		}
	}
	if r := float64(byName) / n; r < 0.57 || r > 0.63 {
		t.Errorf("by-name rate %.3f", r)
	}
}

func TestThinkTime(t *testing.T) {
	r := NewRand(1, 1)
	var sum time.Duration
	for range 100000 {
		d := ThinkTime(PaymentTxn, r)
		if d < 0 || d > 120*time.Second {
			t.Fatalf("think %v", d)
		}
		sum += d
	}
	if mean := sum / 100000; mean < 11*time.Second || mean > 13*time.Second {
		t.Errorf("mean think %v, want ~12s", mean)
	}
}

func BenchmarkGenerateStock(b *testing.B) {
	cfg := GenConfig{Seed: 1, LoadTime: loadTime, Constants: LoadConstants(1)}
	for b.Loop() {
		src := Generate(cfg, Stock, 1)
		for src.Next() {
		}
	}
}
