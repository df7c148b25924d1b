package scenario

import (
	"fmt"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
)

// pointHalf is a sweep point's NOPM half-width: the t interval across its
// repeats, or with one repeat its batch-means interval widened by the
// default drift between runs (each value is a run of its own).
func pointHalf(a analysis.StepAggregate) float64 {
	if a.NOPMCI.N >= 2 {
		return a.NOPMCI.Half
	}
	return steady.DefaultDrift().Widen(steady.Interval{Mean: a.NOPM.Mean, Half: a.BatchNOPMCI.Half, Confidence: 0.95}).Half
}

// kneeJudged applies KneeRule to points in measuring order, calling a
// value beyond the threshold only when its NOPM interval lies wholly below
// the best's interval less the threshold (NOPMHalf; points without one
// are taken at their value). When the first value beyond the threshold is
// within that precision, no knee is called: found is false and note says
// the values are not distinguishable, naming the figure merit ("NOPM", or
// a workload's: meritName).
func kneeJudged(points []SweepPoint, threshold float64, merit string) (knee int, found bool, note string) {
	best := -1
	for i, p := range points {
		if p.Decides() && (best < 0 || p.NOPM > points[best].NOPM) {
			best = i
		}
	}
	if best < 0 {
		return -1, false, ""
	}
	b := points[best]
	knee = -1
	for i, p := range points {
		if !p.Decides() {
			continue
		}
		p90 := b.NewOrderP90Ms == 0 || p.NewOrderP90Ms <= b.NewOrderP90Ms*(1+threshold)
		within := p.NOPM >= b.NOPM*(1-threshold)
		switch {
		case within && p90:
			knee = i
			continue
		case within || p.NOPM+p.NOPMHalf < (b.NOPM-b.NOPMHalf)*(1-threshold):
			return knee, true, ""
		}
		return knee, false, fmt.Sprintf("no knee called: %s, %s %.0f ± %.0f, is more than %.0f %% below the best, %s (%.0f ± %.0f), but not distinguishable from it at this precision "+
			"(a single run's interval widened by the drift between runs, %s); repeat the values (--repeat) to decide", p.Value, merit, p.NOPM, p.NOPMHalf,
			threshold*100, b.Value, b.NOPM, b.NOPMHalf, steady.DefaultDrift())
	}
	return knee, false, ""
}
