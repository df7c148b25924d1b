package store

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"

	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/waits"
)

// stepWhy is a step's row of step_waits: its wait profile, saturation and
// verdict as JSON documents ("" when absent).
type stepWhy struct {
	profile, saturation, verdict string
}

func whyFields(w *stepWhy) []field {
	return []field{{"profile", &w.profile}, {"saturation", &w.saturation}, {"verdict", &w.verdict}}
}

// jsonOf encodes v, "" for a nil pointer.
func jsonOf[T any](v *T) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// fromJSON decodes s, nil for "" or a document this version cannot read.
func fromJSON[T any](s string) *T {
	if s == "" {
		return nil
	}
	v := new(T)
	if json.Unmarshal([]byte(s), v) != nil {
		return nil
	}
	return v
}

// insertWaits writes the step's row of step_waits when it has any of them.
func (s *Store) insertWaits(ctx context.Context, tx *sql.Tx, id int64, st *Step) error {
	if st.Waits == nil && st.Saturation == nil && st.Verdict == nil {
		return nil
	}
	w := stepWhy{jsonOf(st.Waits), jsonOf(st.Saturation), jsonOf(st.Verdict)}
	return s.insertRows(ctx, tx, "step_waits", names(whyFields(&stepWhy{})), 1, func(_ int, a []any) []any {
		return rowArgs(a, id, 0, whyFields(&w))
	})
}

// setWhy gives a loaded step its row of step_waits.
func (st *Step) setWhy(w stepWhy) {
	st.Waits = fromJSON[waits.Profile](w.profile)
	st.Saturation = fromJSON[waits.Saturation](w.saturation)
	st.Verdict = fromJSON[diagnosis.Verdict](w.verdict)
}

// waitsCSV writes one row per wait event of every step, with the step's
// source and verdict.
func waitsCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append([]string{}, stepKeyHeader...), "source", "class", "event", "seconds", "count", "verdict")
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		if st.Waits == nil {
			continue
		}
		verdict := ""
		if st.Verdict != nil {
			verdict = st.Verdict.Text
		}
		for _, e := range st.Waits.Events {
			rec := append(stepKey(r, st), st.Waits.Source, string(e.Class), e.Name, cf(e.Seconds), cf(e.Count), verdict)
			if err := w.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}
