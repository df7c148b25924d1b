package scenario

import (
	"fmt"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/steady"
)

// Ending is how a step's phases ended and how precise its mean is.
type Ending struct {
	Rampup     string // steady.EndFixed, EndSteady, EndMax or EndInterrupted
	RampupNote string // the warm-up rule's last finding
	Measure    string // steady.EndFixed, EndPrecision, EndMax or EndInterrupted
	// TPM and NOPM are the batch-means intervals of the per-minute means
	// over the measured whole seconds (zero when too short).
	TPM, NOPM steady.Interval
	// Precision is the larger relative half-width (0.02 = ±2 %); 0 when
	// unknown.
	Precision float64
}

// ending works out a step's Ending from its plan, its controller (nil for
// fixed lengths) and its result.
func ending(p steady.Plan, ctl *steady.Controller, res *driver.StepResult) Ending {
	e := Ending{Rampup: steady.EndFixed, Measure: steady.EndFixed}
	if p.RampupAuto {
		e.Rampup, e.RampupNote = steady.EndMax, ctl.RampupWhy
		if ctl.RampupDone {
			e.Rampup = steady.EndSteady
		}
	}
	if p.DurationAuto {
		e.Measure = steady.EndMax
		if ctl.MeasureDone {
			e.Measure = steady.EndPrecision
		}
	}
	if res.Partial {
		e.Measure = steady.EndInterrupted
		if res.Measured() <= 0 {
			e.Rampup = steady.EndInterrupted
		}
	}
	conf := p.Confidence
	if conf == 0 {
		conf = 0.95
	}
	txn, no := measuredSeconds(res)
	if tpm, nopm, rel, _, err := steady.Precision(txn, no, conf); err == nil {
		e.TPM, e.NOPM, e.Precision = tpm, nopm, rel
	}
	return e
}

// measuredSeconds returns the per-second transactions and New-Orders of
// the whole seconds of the measured interval.
func measuredSeconds(res *driver.StepResult) (txn, newOrders []float64) {
	first := int((res.MeasureStart.Sub(res.StepStart) + time.Second/2) / time.Second)
	last := min(int(res.MeasureEnd.Sub(res.StepStart)/time.Second), len(res.PerSecondTxn))
	for i := first; i < last; i++ {
		txn = append(txn, float64(res.PerSecondTxn[i]))
		newOrders = append(newOrders, float64(res.PerSecondNewOrder[i]))
	}
	return txn, newOrders
}

// agreement follows each step's TPM and NOPM over the repeats for
// --repeat auto.
type agreement struct {
	maxCV     float64
	tpm, nopm map[int][]float64
}

func newAgreement(maxCV float64) *agreement {
	return &agreement{maxCV: maxCV, tpm: map[int][]float64{}, nopm: map[int][]float64{}}
}

func (g *agreement) add(index int, res *driver.StepResult) {
	g.tpm[index] = append(g.tpm[index], res.TPM())
	g.nopm[index] = append(g.nopm[index], res.NOPM())
}

// check reports whether the repeats so far agree (every step's CV of TPM
// and NOPM at most maxCV, from two repeats on) and says why.
func (g *agreement) check(repeats, maxRepeats int) (bool, string) {
	worst := 0.0
	for i := range g.tpm {
		worst = max(worst, steady.CV(g.tpm[i]), steady.CV(g.nopm[i]))
	}
	switch {
	case repeats >= 2 && worst <= g.maxCV:
		return true, fmt.Sprintf("agreed after %d repeats: largest CV %.1f %% ≤ %.1f %%", repeats, worst*100, g.maxCV*100)
	case repeats < 2:
		return false, fmt.Sprintf("maximum of %d repeat reached", maxRepeats)
	default:
		return false, fmt.Sprintf("maximum of %d repeats reached: largest CV %.1f %% > %.1f %%", maxRepeats, worst*100, g.maxCV*100)
	}
}
