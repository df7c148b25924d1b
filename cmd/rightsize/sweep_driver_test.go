package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// storeCPUSweep stores a complete cpus sweep of values measured on a
// 2-core host, as `sweep cpus` stores one (each run with its caps asked).
func storeCPUSweep(t *testing.T, loc string, values ...string) string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sw := &store.Sweep{Kind: "cpus", Values: values, Spec: map[string]string{"knee_threshold": "0.1"}}
	return storetest.Sweep(t, st, sw, func(_ int, v string) *store.Run {
		return &store.Run{Label: scenario.RunLabel("cpus", sw.ID, "") + " cpus=" + v, Source: store.SourceRightsize, Status: store.StatusRunning,
			Users: []int{4}, Repeats: 1, Env: map[string]string{"host.logical_cpus": "2", "caps.asked": `{"cpus":` + v + `}`},
			Flags: map[string]string{"sweep": sw.ID, "sweep.kind": "cpus", "sweep.value": v, "driver-cpus": ""}}
	}, func(i int) store.Step {
		return store.Step{Repeat: 1, Users: 4, TPM: 20000 - 1000*float64(i), NOPM: 9000 - 400*float64(i)}
	})
}

// On a 2-core host, `sweep cpus --values 2,1` leaves the driver no core of
// its own at 2: the sweep's table marks that row, the knee line and a note
// say so with a fair list (--values 1,0.5); the report opens with the sweep
// section saying the same, its runs named by their value alone. A sweep
// of 1,0.5 says none of it.
func TestSweepDriverNote(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		values []string
		shared bool
	}{{[]string{"2", "1"}, true}, {[]string{"1", "0.5"}, false}} {
		t.Run(strings.Join(c.values, ","), func(t *testing.T) {
			loc := tempStore(t)
			id := storeCPUSweep(t, loc, c.values...)
			st, err := store.Open(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			res, err := scenario.LoadSweepResult(ctx, st, id, 0)
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			writeSweep(&b, res)
			text := b.String()
			html, errOut, code := cli(t, ctx, "report", "--store", loc, "--sweep", id, "-o", "-")
			if code != 0 {
				t.Fatalf("report --sweep: exit %d\n%s", code, errOut)
			}
			sweep := regexp.MustCompile(`(?s)<section id="sweep">.*?</section>`).FindString(html)
			shown := map[string]bool{
				"the table's mark":       regexp.MustCompile(`(?m)^ +2\* +complete`).MatchString(text),
				"the knee line's remark": regexp.MustCompile(`(?m)^  knee: .* · \* cpus 2 left the driver no core of its own`).MatchString(text),
				"the sweep's note":       strings.Contains(text, "  * cpus 2 leaves the driver (rightsize) no core of its own on the sweep's 2-core host") && strings.Contains(text, "--values 1,0.5 there"),
				"the report's note":      strings.Contains(sweep, "cpus 2 leaves the driver (rightsize) no core of its own") && strings.Contains(sweep, "--values 1,0.5 there"),
				"the report's mark":      strings.Contains(sweep, ">2 *</td>"),
			}
			for what, ok := range shown {
				if ok != c.shared {
					t.Errorf("%s shown: %v, want %v\n%s", what, ok, c.shared, text)
				}
			}
			if first := regexp.MustCompile(`<section id="([a-z-]+)">`).FindStringSubmatch(html); first == nil || first[1] != "sweep" {
				t.Errorf("the report opens with %v, not the sweep", first)
			}
			if !strings.Contains(html, "<b>cpus="+c.values[0]+"</b>") || strings.Contains(html, "<b>sweep-"+id) {
				t.Error("the report's runs are not named by their value alone")
			}
		})
	}
}
