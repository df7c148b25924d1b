package store

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/waits"
)

// A step's wait profile, saturation and verdict are stored with it, read
// back equal (analysis averages them across repeats), deleted with the
// run and exported in JSON and CSV; a step without them reads back nil.
func TestStepWaits(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r := testRun("waits", time.Now())
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		prof := func(lock float64) *waits.Profile {
			return &waits.Profile{Source: "pg_stat_activity", Sampled: true, IntervalMs: 100, Ticks: 50, Seconds: 5,
				Events:   []waits.Event{{Class: waits.Lock, Name: "Lock:tuple", Seconds: lock, Count: lock * 10}},
				Locks:    []waits.LockWait{{Type: "tuple", Relation: "district", Mode: "ExclusiveLock", Samples: 3}},
				Counters: map[string]float64{"wal.wal_sync": 7}, Missing: []string{"pg_read_all_stats"}}
		}
		a := testStep(t, r.ID, 1, 0, 4, 2, 1, 2)
		a.Waits, a.Saturation = prof(2), &waits.Saturation{Disk: "vda", DiskP99Ms: 3, Cores: 2}
		a.Verdict = &diagnosis.Verdict{Kind: "lock-bound", Text: "lock-bound: …"}
		b := testStep(t, r.ID, 2, 0, 4, 2, 1, 2)
		b.Waits, b.Saturation = prof(4), &waits.Saturation{Disk: "vda", DiskP99Ms: 5, Cores: 2}
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
		files, err := ExportCSV(ctx, s, r.ID, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if recs := readCSV(t, files[len(files)-1]); len(recs) != 3 || recs[1][7] != "Lock" || recs[1][8] != "Lock:tuple" {
			t.Errorf("waits.csv %v", recs)
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
