// This file is the stored-steps layer of "why it stops" (see package waits'
// doc for the four layers): a step's wait Profile, Saturation and Verdict as
// store holds them (JSON documents) decoded and encoded, averaged across
// repeats and diagnosed (package diagnosis), and waits.csv. It stays in
// analysis because it aggregates StepAggregate and needs store, which
// neither waits nor diagnosis imports.

package analysis

import (
	"encoding/json"

	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

// Why is a stored step's wait profile, saturation and verdict: the JSON
// documents store.Step holds (Waits, Saturation, Verdict), decoded.
type Why struct {
	Waits      *waits.Profile
	Saturation *waits.Saturation
	Verdict    *diagnosis.Verdict
}

// WhyOf decodes the step's documents; each is nil when absent or one this
// version cannot read.
func WhyOf(st *store.Step) Why {
	return Why{decode[waits.Profile](st.Waits), decode[waits.Saturation](st.Saturation), decode[diagnosis.Verdict](st.Verdict)}
}

// Put encodes w into the step's documents (nil for nil ones).
func (w Why) Put(st *store.Step) {
	st.Waits, st.Saturation, st.Verdict = encode(w.Waits), encode(w.Saturation), encode(w.Verdict)
}

// encode is v's JSON document, nil for a nil pointer.
func encode[T any](v *T) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// decode decodes a document, nil for none or one this version cannot read.
func decode[T any](doc json.RawMessage) *T {
	if len(doc) == 0 {
		return nil
	}
	v := new(T)
	if json.Unmarshal(doc, v) != nil {
		return nil
	}
	return v
}

// WaitsCSV is the file of the CSV export holding one row per wait event of
// every step, with the step's source and verdict (waitsFile).
const WaitsCSV = "waits.csv"

// waitsFile is waits.csv for store.ExportCSV.
var waitsFile = store.CSVFile{Name: WaitsCSV, Columns: []string{"source", "class", "event", "seconds", "count", "verdict"},
	Rows: func(st *store.Step) [][]string {
		w := WhyOf(st)
		if w.Waits == nil {
			return nil
		}
		verdict := ""
		if w.Verdict != nil {
			verdict = w.Verdict.Text
		}
		var rows [][]string
		for _, e := range w.Waits.Events {
			rows = append(rows, []string{w.Waits.Source, string(e.Class), e.Name, store.CSVFloat(e.Seconds), store.CSVFloat(e.Count), verdict})
		}
		return rows
	}}

// aggregateWhy averages the group's wait profiles and saturations and
// diagnoses the mean.
func aggregateWhy(a *StepAggregate, group []*store.Step) {
	var ps []*waits.Profile
	var ss []*waits.Saturation
	for _, st := range group {
		w := WhyOf(st)
		ps = append(ps, w.Waits)
		ss = append(ss, w.Saturation)
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
