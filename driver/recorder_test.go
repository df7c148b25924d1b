package driver

import (
	"fmt"
	"testing"
	"time"

	"github.com/rightsize/rightsize/tpcc"
)

// TestRecorderWindowsAndStep records transactions, measured and not, over
// several windows, and checks that every window holds what was recorded in
// it and the measured interval's histograms hold every measured one, with
// the values where they were recorded: including those of windows already
// closed and of the window still open.
func TestRecorderWindowsAndStep(t *testing.T) {
	type rec struct {
		user     int
		typ      tpcc.TxnType
		us       int64
		measured bool
	}
	windows := [][]rec{ // recorded in each window, then rotate (all but the last)
		{{0, tpcc.NewOrderTxn, 100, false}, {1, tpcc.PaymentTxn, 200, false}},
		{{0, tpcc.NewOrderTxn, 300, false}, {0, tpcc.NewOrderTxn, 5000, true}, {17, tpcc.PaymentTxn, 700, true}},
		{{2, tpcc.NewOrderTxn, 900, true}, {3, tpcc.StockLevelTxn, 40, true}},
		{{0, tpcc.NewOrderTxn, 20000, true}, {1, tpcc.DeliveryTxn, 60, false}}, // still open
	}
	start := time.Now()
	r := newRecorder(start, 60)
	var wantStep [tpcc.NumTxnTypes][]int64
	for i, w := range windows {
		var want [tpcc.NumTxnTypes][]int64
		for _, x := range w {
			r.record(x.user, x.typ, time.Duration(x.us)*time.Microsecond, start, x.measured)
			want[x.typ] = append(want[x.typ], x.us)
			if x.measured {
				wantStep[x.typ] = append(wantStep[x.typ], x.us)
			}
		}
		if i == len(windows)-1 {
			break
		}
		got := r.rotate()
		for typ := range got {
			checkHist(t, fmt.Sprintf("window %d", i+1), tpcc.TxnType(typ), got[typ].TotalCount(), got[typ].Max(), want[typ])
		}
	}
	step := r.merged()
	for typ := range step {
		checkHist(t, "measured interval", tpcc.TxnType(typ), step[typ].TotalCount(), step[typ].Max(), wantStep[typ])
	}
	last := r.rotate()
	if n := last[tpcc.DeliveryTxn].TotalCount() + last[tpcc.NewOrderTxn].TotalCount(); n != 2 {
		t.Errorf("the last window holds %d transactions, want 2", n)
	}
	if again := r.merged(); again[tpcc.NewOrderTxn].TotalCount() != int64(len(wantStep[tpcc.NewOrderTxn])) {
		t.Errorf("after the last rotation the measured New-Orders are %d, want %d", again[tpcc.NewOrderTxn].TotalCount(), len(wantStep[tpcc.NewOrderTxn]))
	}
	for i := 4; i < shards; i++ { // users 0-3 and 17 recorded: shards 0-3
		s := &r.shards[i]
		for typ := range tpcc.NumTxnTypes {
			if s.step[typ] != nil || s.winM[typ] != nil || s.winU[typ] != nil {
				t.Errorf("shard %d, no user's, has a histogram of type %d", i, typ)
			}
		}
	}
}

func checkHist(t *testing.T, what string, typ tpcc.TxnType, count, gotMax int64, want []int64) {
	t.Helper()
	var wantMax int64
	for _, v := range want {
		wantMax = max(wantMax, v)
	}
	if count != int64(len(want)) {
		t.Errorf("%s, type %d: %d transactions, want %d", what, typ, count, len(want))
	}
	// 3 significant digits: the max is within 0.1 % of the value recorded
	if wantMax > 0 && (gotMax < wantMax || gotMax > wantMax+wantMax/1000+1) {
		t.Errorf("%s, type %d: max %d µs, want %d", what, typ, gotMax, wantMax)
	}
}
