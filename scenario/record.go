package scenario

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// encodeHist returns the histogram in the store's HdrHistogram text form.
func encodeHist(h *hdrhistogram.Histogram) store.HdrHist {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil
	}
	return b
}

func ms(us int64) float64 { return float64(us) / 1000 }

// durMs is d in milliseconds.
func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TxnSummary returns the store summary of one transaction type's stats.
func TxnSummary(t tpcc.TxnType, s driver.TxnStats) store.TxnSummary {
	return namedSummary(t.String(), s)
}

// namedSummary returns the store summary of the stats of a transaction
// type or kind named name.
func namedSummary(name string, s driver.TxnStats) store.TxnSummary {
	out := store.TxnSummary{Type: name, Txn: figures.Txn{Count: s.Count, Rollbacks: s.Rollbacks, Retries: s.Retries, Errors: s.Errors},
		FirstError: s.FirstError}
	if h := s.Hist; h != nil && h.TotalCount() > 0 {
		out.P50Ms, out.P90Ms, out.P95Ms = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(90)), ms(h.ValueAtQuantile(95))
		out.P99Ms, out.MaxMs, out.MeanMs = ms(h.ValueAtQuantile(99)), ms(h.Max()), h.Mean()/1000
		out.Hist = encodeHist(h)
	}
	return out
}

// StoreStep converts a measured step into the store's model.
func (r StepRecord) StoreStep(runID string) store.Step {
	res := r.Result
	s := store.Step{RunID: runID, Repeat: r.Repeat, Index: r.Index, Users: res.Users, Start: res.StepStart,
		MeasureStart: res.MeasureStart, MeasureEnd: res.MeasureEnd, Partial: res.Partial,
		TPM: res.TPM(), NOPM: res.NOPM(), DriverCPUUsPerTxn: res.DriverCPUPerTxn(), ServerCPUUsPerTxn: res.ServerCPUPerTxn(),
		SkippedDeliveries: res.SkippedDeliveries, Reconnects: res.Reconnects,
		ScheduleLagMs: durMs(res.ScheduleLag), ScheduleLagMaxMs: durMs(res.ScheduleLagMax),
		LateTxns: res.Late, SkippedTxns: res.Skipped,
		OrderLines: res.OrderLines, RemoteOrderLines: res.RemoteOrderLines, RemotePayments: res.RemotePayments}
	s.TPMPerUser = s.TPM / float64(res.Users)
	e := r.Ending
	s.RampupEnd, s.RampupNote, s.MeasureEndHow = e.Rampup, e.RampupNote, e.Measure
	s.PrecisionPct, s.TPMCIHalf, s.NOPMCIHalf, s.Confidence = e.Precision*100, e.TPM.Half, e.NOPM.Half, e.TPM.Confidence
	if m := res.Measured().Seconds(); m > 0 {
		s.DriverCPUPct = res.DriverCPU.Seconds() / m * 100
		s.ServerCPUPct = res.ServerCPU.Seconds() / m * 100
	}
	s.Host = r.Host.Host
	if r.CountersOK {
		c := r.Counters
		s.DB = store.DBCounters{Commits: c.Commits, Rollbacks: c.Rollbacks, BlocksRead: c.BlocksRead, BlocksHit: c.BlocksHit,
			WALBytes: c.WALBytes, Checkpoints: c.Checkpoints}
		if m := res.Measured().Minutes(); m > 0 {
			s.DB.TPM = float64(c.Commits+c.Rollbacks) / m
		}
		if n := c.BlocksHit + c.BlocksRead; n > 0 {
			s.DB.BufferHitPct = float64(c.BlocksHit) / float64(n) * 100
		}
	}
	why := analysis.Why{Waits: r.Waits, Saturation: r.Saturation}
	if r.Waits != nil || r.Saturation != nil {
		v := diagnosis.Diagnose(diagnosis.Step{Users: res.Users, TPM: s.TPM, Waits: r.Waits, Saturation: r.Saturation})
		why.Verdict = &v
	}
	why.Put(&s)
	s.Txn = stepTxn(res)
	s.Statements = stepStatements(res)
	if d := res.Deferred; d != nil {
		x := TxnSummary(tpcc.DeliveryTxn, d.TxnStats)
		x.Type = store.DeferredDeliveryType
		s.Txn = append(s.Txn, x)
	}
	for i := range res.PerSecondTxn {
		sec := store.Second{Offset: i, Txn: res.PerSecondTxn[i], NewOrders: res.PerSecondNewOrder[i]}
		if i < len(r.WAL) {
			sec.WALBytes = r.WAL[i]
		}
		s.Seconds = append(s.Seconds, sec)
	}
	for _, w := range res.Windows {
		s.Windows = append(s.Windows, kindWindows(res, w)...)
		for t, hist := range w.Hists {
			if hb := encodeHist(hist); hb != nil {
				s.Windows = append(s.Windows, store.Window{Offset: w.Start, Type: tpcc.TxnType(t).String(), Hist: hb})
			}
		}
	}
	for i := range r.Samples {
		s.Samples = append(s.Samples, r.Samples[i].Figures())
	}
	return s
}
