package capacity

import "github.com/rightsize/rightsize/store"

// WALPoint is where a step stood at the end of one of its seconds: the
// transactions completed and the WAL written since the step began.
type WALPoint struct {
	Txns  float64 `json:"txns"`
	Bytes float64 `json:"bytes"`
}

// WALCurve is the WAL a step wrote against the transactions it had
// completed, second by second from its start (ramp-up included), with
// where its measured window lay. A sweep's step starts after a checkpoint
// (the restore's), and after a checkpoint the first change to each page
// logs the whole page: the WAL a transaction writes falls as the step
// goes on, from several pages' images to its records alone. A step that
// completes fewer transactions (a write bandwidth limit's) stays longer
// where they are dearest; the curve says how much dearer.
type WALCurve struct {
	Points []WALPoint `json:"points,omitempty"`
	// RampupSec is the base's ramp-up, seconds (its window is
	// Demands.WindowSec): a predicted step is taken to run the same.
	RampupSec float64 `json:"rampup_s,omitempty"`
}

// walCurveOf is step s's WAL curve; empty where its seconds hold no WAL
// (a store from before they did, an engine that cannot tell).
func walCurveOf(s store.Step) WALCurve {
	c := WALCurve{RampupSec: s.MeasureStart.Sub(s.Start).Seconds()}
	var p WALPoint
	for _, sec := range s.Seconds {
		p.Txns += float64(sec.Txn)
		p.Bytes += float64(sec.WALBytes)
		c.Points = append(c.Points, p)
	}
	if p.Bytes <= 0 || p.Txns <= 0 {
		return WALCurve{}
	}
	return c
}

// at is the WAL written by the first n transactions: interpolated along
// the curve from its origin, and past its end at the slope of its last
// half (by then the images are mostly logged).
func (c WALCurve) at(n float64) float64 {
	prev := WALPoint{}
	for _, p := range c.Points {
		if p.Txns >= n && p.Txns > prev.Txns {
			return prev.Bytes + (n-prev.Txns)*(p.Bytes-prev.Bytes)/(p.Txns-prev.Txns)
		}
		prev = p
	}
	mid := c.Points[len(c.Points)/2]
	last := c.Points[len(c.Points)-1]
	slope := 0.0
	if last.Txns > mid.Txns {
		slope = (last.Bytes - mid.Bytes) / (last.Txns - mid.Txns)
	}
	return last.Bytes + (n-last.Txns)*slope
}

// perTxn is the WAL per transaction of a step like the base's run at x
// transactions a second with a window of window seconds: over the
// transactions its window completes (from x·RampupSec to
// x·(RampupSec+window)); ok is false without a curve.
func (c WALCurve) perTxn(x, window float64) (bytes float64, ok bool) {
	if len(c.Points) == 0 || x <= 0 || window <= 0 {
		return 0, false
	}
	n0, n1 := x*c.RampupSec, x*(c.RampupSec+window)
	return (c.at(n1) - c.at(n0)) / (n1 - n0), true
}

// walPerTxn is the WAL a transaction of a limited step at x transactions
// a second writes, from the base's curve, where the base started from a
// checkpoint as every step does on cgroup v2 (instance.ConfinedPostgres
// settles each restore there). On v1 the steps start where the restore
// left the server, its pages freshly logged, and the curve is read
// nowhere: on bench/predict's bw shape (2026-11-30, two rounds) it moved
// the predictions from −5.8 % and −3.6 % to −9.8 % and −10.3 %.
func (d Demands) walPerTxn(x float64) (float64, bool) {
	if d.Config.CgroupVersion != 2 {
		return 0, false
	}
	return d.WALCurve.perTxn(x, d.WindowSec)
}
