package worker

import (
	"strings"
	"testing"
)

func TestRunIDSharedBySameSettings(t *testing.T) {
	a := RunID("8 pods", map[string]string{"users": "64", "duration": "5m0s"})
	b := RunID("8 pods", map[string]string{"duration": "5m0s", "users": "64"})
	c := RunID("8 pods", map[string]string{"users": "65", "duration": "5m0s"})
	if a != b || a == c || !strings.HasPrefix(a, "8-pods-") {
		t.Fatalf("run ids %q %q %q: want the first two equal, the third different, spaces replaced", a, b, c)
	}
	if got := RunID("", nil); !strings.HasPrefix(got, "workers-") {
		t.Fatalf("run id without a label %q", got)
	}
}

func TestDifference(t *testing.T) {
	cases := []struct {
		a, b map[string]string
		want string
	}{
		{map[string]string{"users": "4"}, map[string]string{"users": "4"}, ""},
		{map[string]string{"users": "4", "duration": "1m0s"}, map[string]string{"users": "4", "duration": "2m0s"}, `duration is "1m0s" here, "2m0s" there`},
		{map[string]string{"build": "dev a"}, map[string]string{"build": "dev b"}, `build is "dev a" here, "dev b" there`},
		{map[string]string{"mode": "statements"}, map[string]string{}, `mode is "statements" here, "" there`},
	}
	for _, c := range cases {
		if got := difference(fingerprint(c.a), fingerprint(c.b)); got != c.want {
			t.Errorf("difference(%v, %v) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	m := &Meeting{cfg: Config{RunID: "r", Worker: 1, Workers: 3}}
	same := fingerprint(map[string]string{"users": "6"})
	for _, c := range []struct {
		name    string
		workers []workerRow
		want    string
	}{
		{"number taken", []workerRow{{1, 3, "registered", same}}, "already registered"},
		{"other count", []workerRow{{0, 2, "registered", same}}, "started with 3 workers, worker 0/2 with 2"},
		{"other flags", []workerRow{{0, 3, "registered", fingerprint(map[string]string{"users": "9"})}}, `users is "6" here, "9" there`},
		{"arrived late", []workerRow{{1, 3, "missing", ""}}, "arrived after"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := m.check(rows(c.workers), same)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("check: %v, want %q", err, c.want)
			}
		})
	}
	if err := m.check(rows([]workerRow{{0, 3, "registered", same}}), same); err != nil {
		t.Fatalf("a matching worker refused: %v", err)
	}
}
