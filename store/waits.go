package store

import (
	"context"
	"database/sql"
	"encoding/json"
)

// stepWhy is a step's row of step_waits: its wait profile, saturation and
// verdict as JSON documents ("" when absent).
type stepWhy struct {
	profile, saturation, verdict string
}

func whyFields(w *stepWhy) []field {
	return []field{{"profile", &w.profile}, {"saturation", &w.saturation}, {"verdict", &w.verdict}}
}

// rawOf is a stored document as the step holds it (nil for "").
func rawOf(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// insertWaits writes the step's row of step_waits when it has any of them.
func (s *Store) insertWaits(ctx context.Context, tx *sql.Tx, id int64, st *Step) error {
	if len(st.Waits) == 0 && len(st.Saturation) == 0 && len(st.Verdict) == 0 {
		return nil
	}
	w := stepWhy{string(st.Waits), string(st.Saturation), string(st.Verdict)}
	return insertChildren(ctx, s, tx, "step_waits", whyFields, id, []stepWhy{w})
}

// setWhy gives a loaded step its row of step_waits.
func (st *Step) setWhy(w stepWhy) {
	st.Waits, st.Saturation, st.Verdict = rawOf(w.profile), rawOf(w.saturation), rawOf(w.verdict)
}
