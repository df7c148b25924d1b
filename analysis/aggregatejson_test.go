package analysis

import (
	"encoding/json"
	"testing"

	"github.com/rightsize/rightsize/store"
)

// TestAggregateFiguresAreNumbers: in the run's JSON document a figure has
// one shape, a stored step's and run --json's: "tpm", "nopm" and
// "tpm_per_user" of an aggregate are numbers (the means), their spread
// beside them under _min, _max and _cv; the document reads back the same.
func TestAggregateFiguresAreNumbers(t *testing.T) {
	steps := []store.Step{{Repeat: 1, Users: 2, TPM: 100, NOPM: 40, TPMPerUser: 50}, {Repeat: 2, Users: 2, TPM: 120, NOPM: 50, TPMPerUser: 60}}
	doc := NewDocument(&store.Run{ID: "r"}, steps)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Steps      []map[string]any `json:"steps"`
		Aggregates []map[string]any `json:"aggregates"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	a := doc.Aggregates[0]
	want := map[string]float64{"tpm": a.TPM.Mean, "tpm_min": 100, "tpm_max": 120, "tpm_cv": a.TPM.CV, "nopm": 45, "nopm_min": 40, "nopm_max": 50,
		"nopm_cv": a.NOPM.CV, "tpm_per_user": 55, "tpm_per_user_min": 50, "tpm_per_user_max": 60, "tpm_per_user_cv": a.TPMPerUser.CV}
	for k, v := range want {
		if got, ok := raw.Aggregates[0][k].(float64); !ok || got != v {
			t.Errorf("aggregate %s = %v, want the number %v", k, raw.Aggregates[0][k], v)
		}
	}
	for _, k := range []string{"tpm", "nopm", "tpm_per_user"} {
		if _, ok := raw.Steps[0][k].(float64); !ok {
			t.Errorf("stored step's %s = %v, not a number", k, raw.Steps[0][k])
		}
	}
	var back Document
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if g := back.Aggregates[0]; g.TPM != a.TPM || g.NOPM != a.NOPM || g.TPMPerUser != a.TPMPerUser || g.Users != 2 || g.Repeats != 2 {
		t.Errorf("read back %+v, want %+v", g, a)
	}
}
