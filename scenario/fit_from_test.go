package scenario

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/store"
)

// TestSameFigure: fit --from learns only from a run of the fit's own
// workload (TPC-C, or the same scripts and weights) and figure of merit.
func TestSameFigure(t *testing.T) {
	tpcb := &store.Run{Env: map[string]string{store.EnvWorkload: "tpcb", store.EnvWorkloadScripts: "tpcb-like@1"}}
	mix := &store.Run{Env: map[string]string{store.EnvWorkload: "scripts", store.EnvWorkloadScripts: "a@9,b@1", store.EnvWorkloadFigure: "b"}}
	tpcc := &store.Run{Env: map[string]string{}}
	simple := &store.Run{Mode: "simple", Env: tpcb.Env}
	prepared := &store.Run{Mode: "prepared", Env: tpcb.Env}
	all, ofB := &store.Merit{PerMinute: "TPM"}, &store.Merit{Txn: "b", PerMinute: "TPM"}
	for _, c := range []struct {
		name     string
		workload string
		protocol string
		merit    *store.Merit
		run      *store.Run
		want     string // "" learns
	}{
		{"tpcb from tpcb", "tpcb: tpcb-like@1", "prepared", all, tpcb, ""},
		{"TPC-C from TPC-C", "", "", nil, tpcc, ""},
		{"tpcb from TPC-C", "tpcb: tpcb-like@1", "prepared", all, tpcc, "it ran TPC-C and the fit runs workload tpcb: tpcb-like@1"},
		{"TPC-C from tpcb", "", "", nil, tpcb, "it ran workload tpcb: tpcb-like@1 and the fit runs TPC-C"},
		{"other weights", "scripts: a@1,b@1", "prepared", ofB, mix, "it ran workload scripts: a@9,b@1"},
		{"same scripts, its figure", "scripts: a@9,b@1", "prepared", ofB, mix, ""},
		{"same scripts, another figure", "scripts: a@9,b@1", "prepared", all, mix, "its figure of merit is b's TPS and the fit's every script's TPS"},
		{"simple from simple", "tpcb: tpcb-like@1", "simple", all, simple, ""},
		{"simple from prepared", "tpcb: tpcb-like@1", "simple", all, prepared, "it sent its statements as pgbench -M prepared and the fit sends them as -M simple"},
		{"prepared from simple", "tpcb: tpcb-like@1", "prepared", all, simple, "it sent its statements as pgbench -M simple and the fit sends them as -M prepared"},
		{"prepared from a run before --protocol", "tpcb: tpcb-like@1", "prepared", all, tpcb, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := predictSpec{Workload: c.workload, Protocol: c.protocol}.sameFigure(c.run, fit.Criteria{Merit: c.merit})
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		})
	}
}
