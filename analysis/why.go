package analysis

import (
	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

// aggregateWhy averages the group's wait profiles and saturations and
// diagnoses the mean.
func aggregateWhy(a *StepAggregate, group []*store.Step) {
	var ps []*waits.Profile
	var ss []*waits.Saturation
	for _, st := range group {
		ps = append(ps, st.Waits)
		ss = append(ss, st.Saturation)
	}
	a.Waits, a.Saturation = waits.Mean(ps), waits.MeanSaturation(ss)
	if a.Waits == nil && a.Saturation == nil {
		return
	}
	v := diagnosis.Diagnose(a.DiagnosisStep())
	a.Verdict = &v
}

// DiagnosisStep is the aggregate's input to the diagnosis rules.
func (a *StepAggregate) DiagnosisStep() diagnosis.Step {
	return diagnosis.Step{Users: a.Users, TPM: a.TPM.Mean, Waits: a.Waits, Saturation: a.Saturation}
}

// RunVerdict is the run's diagnosis (diagnosis.Run) over its aggregated
// steps; ok is false when no step has waits or saturation.
func RunVerdict(aggs []StepAggregate) (v diagnosis.Verdict, ok bool) {
	steps := make([]diagnosis.Step, len(aggs))
	for i := range aggs {
		steps[i] = aggs[i].DiagnosisStep()
		ok = ok || aggs[i].Verdict != nil
	}
	if !ok {
		return v, false
	}
	return diagnosis.Run(steps), true
}
