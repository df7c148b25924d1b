package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A step's wait profile, saturation and verdict are stored with it, read
// back equal (analysis averages them across repeats), deleted with the
// run and exported in JSON and CSV; a step without them reads back nil.
func TestStepWaits(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r := created(t, s, testRun("waits", time.Now()))
		// documents of package waits' and diagnosis' shapes, opaque to the store
		prof := func(lock int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"source":"pg_stat_activity","sampled":true,"interval_ms":100,"ticks":50,"skipped":0,`+
				`"seconds":5,"missing":["pg_read_all_stats"],"events":[{"class":"Lock","name":"Lock:tuple","seconds":%d,"count":%d}],`+
				`"locks":[{"type":"tuple","relation":"district","mode":"ExclusiveLock","samples":3}],"counters":{"wal.wal_sync":7}}`, lock, lock*10))
		}
		a := testStep(t, r.ID, 1, 0, 4, 2, 1, 2)
		a.Waits, a.Saturation = prof(2), json.RawMessage(`{"disk":"vda","disk_p99_ms":3,"cores":2}`)
		a.Verdict = json.RawMessage(`{"kind":"lock-bound","text":"lock-bound: …"}`)
		b := testStep(t, r.ID, 2, 0, 4, 2, 1, 2)
		b.Waits, b.Saturation = prof(4), json.RawMessage(`{"disk":"vda","disk_p99_ms":5,"cores":2}`)
		none := testStep(t, r.ID, 1, 1, 8, 2, 1, 2)
		for _, st := range []*Step{&a, &b, &none} {
			if err := s.AddStep(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		_, steps, err := s.LoadRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		byKey := map[[2]int]Step{}
		for _, st := range steps {
			byKey[[2]int{st.Repeat, st.Index}] = st
		}
		got := byKey[[2]int{1, 0}]
		if !reflect.DeepEqual(got.Waits, a.Waits) || !reflect.DeepEqual(got.Saturation, a.Saturation) || !reflect.DeepEqual(got.Verdict, a.Verdict) {
			t.Errorf("read back %+v %+v %+v", got.Waits, got.Saturation, got.Verdict)
		}
		if n := byKey[[2]int{1, 1}]; n.Waits != nil || n.Saturation != nil || n.Verdict != nil {
			t.Errorf("a step without waits read back %+v", n.Waits)
		}
		b2, err := json.MarshalIndent(steps, "", "  ")
		if err != nil || !strings.Contains(string(b2), `"source": "pg_stat_activity"`) {
			t.Errorf("JSON export lacks the profile (%v)", err)
		}
		// a further file of the documents (analysis writes waits.csv so)
		docs := CSVFile{Name: "docs.csv", Columns: []string{"profile"}, Rows: func(st *Step) [][]string {
			if st.Waits == nil {
				return nil
			}
			return [][]string{{string(st.Waits)}}
		}}
		files, err := ExportCSV(ctx, s, r.ID, t.TempDir(), docs)
		if err != nil {
			t.Fatal(err)
		}
		if recs := readCSV(t, files[len(files)-1]); len(files) != 5 || len(recs) != 3 || recs[0][6] != "profile" || recs[1][6] != string(a.Waits) {
			t.Errorf("docs.csv %v", recs)
		}
		if err := s.DeleteRun(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.db.QueryRow("SELECT COUNT(*) FROM step_waits").Scan(&n); err != nil || n != 0 {
			t.Errorf("%d step_waits rows left after delete (%v)", n, err)
		}
	})
}
