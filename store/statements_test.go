package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStatements: a step's statement summaries are stored and loaded as
// they were (every field, the histogram's bytes), exported as
// statements.csv (only for a run that has them) and deleted with the run.
func TestStatements(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r := created(t, s, testRun("scripts", t0))
		st := testStep(t, r.ID, 1, 0, 2, 3, 1, 1)
		st.Statements = []StatementSummary{
			{Type: "a", Index: 0, Line: 1, Text: `\set aid random(1, 100000)`, Count: 600, P50Ms: 0.001, P90Ms: 0.002, P95Ms: 0.003,
				P99Ms: 0.004, MaxMs: 0.05, MeanMs: 0.0015, Hist: hist(t, 600, 1)},
			{Type: "a", Index: 1, Line: 2, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;", Count: 600, P50Ms: 0.1,
				P90Ms: 0.2, P95Ms: 0.3, P99Ms: 2.5, MaxMs: 40, MeanMs: 0.15, Hist: hist(t, 600, 100)},
		}
		if err := s.AddStep(ctx, &st); err != nil {
			t.Fatal(err)
		}
		_, steps, err := s.LoadRun(ctx, r.ID)
		if err != nil || len(steps) != 1 {
			t.Fatalf("%d steps, %v", len(steps), err)
		}
		if !reflect.DeepEqual(steps[0].Statements, st.Statements) {
			t.Errorf("loaded statements\n%+v\nwant\n%+v", steps[0].Statements, st.Statements)
		}
		files, err := ExportCSV(ctx, s, r.ID, t.TempDir())
		if err != nil || len(files) != 5 || filepath.Base(files[4]) != StatementsCSV {
			t.Fatalf("export %v, %v; want the four files and statements.csv", files, err)
		}
		recs := readCSV(t, files[4])
		if len(recs) != 3 || recs[2][len(recs[2])-1] != "0.15" || recs[0][6] != "type" {
			t.Errorf("statements.csv %q: want a header and 2 rows, the mean last", recs)
		}
		if err := s.DeleteRun(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM step_statements").Scan(&n); err != nil || n != 0 {
			t.Errorf("%d statement rows left after the run was deleted, %v", n, err)
		}
	})
}
