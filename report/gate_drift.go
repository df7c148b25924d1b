package report

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/drift"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// Drifts are the drift between runs of one configuration on one host, per
// judged figure; a zero Drift is the stated default (steady.DefaultDrift).
type Drifts struct {
	TPM  steady.Drift `json:"tpm"`
	NOPM steady.Drift `json:"nopm"`
	P90  steady.Drift `json:"new_order_p90"`
}

// of is the figure's drift, the default when none was measured.
func (d Drifts) of(figure string) steady.Drift {
	var x steady.Drift
	switch figure {
	case FigureTPM:
		x = d.TPM
	case FigureNOPM:
		x = d.NOPM
	case FigureP90:
		x = d.P90
	}
	if x.CV <= 0 && !x.Measured() {
		return steady.DefaultDrift()
	}
	return x
}

// resolved is d with the default in place of each figure not measured,
// so the verdicts' JSON states the CV used.
func (d Drifts) resolved() Drifts {
	return Drifts{TPM: d.of(FigureTPM), NOPM: d.of(FigureNOPM), P90: d.of(FigureP90)}
}

// widen is a single run's estimate widened by the drift between runs
// (steady.Drift.Widen: half² = within² + between²). An interval across
// repeats is left as it is: it holds the spread between repeats already.
// A figure without an interval gets one from the drift alone when
// throughput (a step too short for batch means), and stays without one
// when a percentile: a latency is not decided without its own interval.
func widen(e Estimate, d steady.Drift, conf float64, throughput bool) Estimate {
	switch {
	case e.Interval == FromRepeats, e.Interval == NoInterval && !throughput:
		return e
	case e.Interval == NoInterval:
		e.Interval = FromDriftOnly
	}
	e.Within = e.Half
	e.Half = d.Widen(steady.Interval{Mean: e.Value, Half: e.Half, Confidence: conf}).Half
	e.Drift = &d
	return e
}

// driftLine says where the between-run figures of the verdicts came from,
// and how to measure them when assumed.
func driftLine(v *Verdicts) string {
	say := func(d Drifts) string {
		switch v.Figure {
		case "":
			return fmt.Sprintf("TPM %s, NOPM %s, New-Order p90 %s", d.of(FigureTPM), d.of(FigureNOPM), d.of(FigureP90))
		case store.FigureEveryScript:
			return fmt.Sprintf("TPM %s, p90 %s", d.of(FigureTPM), d.of(FigureP90))
		}
		return fmt.Sprintf("TPM %s, %s %s, p90 %s", d.of(FigureTPM), v.Figure, d.of(FigureNOPM), d.of(FigureP90))
	}
	a, b := say(v.DriftA), say(v.DriftB)
	line := "drift between runs of one configuration: "
	if a == b {
		line += a + " for both"
	} else {
		line += "A " + a + "; B " + b
	}
	if strings.Contains(a+b, "assumed") {
		line += "; measure it with rightsize calibrate (or --repeat), or compare interleaved with rightsize ab"
	}
	return line
}

// MeasureDrifts estimates the drift between runs of run's configuration
// on its host from the store's A/A history (drift.Measure); a figure with
// too few runs keeps the default (a zero Drift).
func MeasureDrifts(ctx context.Context, st *store.Store, run store.Run) (Drifts, error) {
	f, err := drift.Measure(ctx, st, run)
	return Drifts{TPM: f.TPM, NOPM: f.NOPM, P90: f.P90}, err
}
