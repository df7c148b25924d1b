package report

import (
	"testing"

	"github.com/rightsize/rightsize/store"
)

// TestNOPMNames: the throughput charts name the NOPM column TPC-C's way,
// a workload's figure as every view names it when every run has that
// figure, and both ways for runs of both kinds or of different figures.
func TestNOPMNames(t *testing.T) {
	tpcc := RunData{Run: store.Run{Env: map[string]string{}}}
	every := RunData{Run: store.Run{Env: map[string]string{store.EnvWorkload: "tpcb", store.EnvWorkloadScripts: "tpcb-like@1"}}}
	upd := RunData{Run: store.Run{Env: map[string]string{store.EnvWorkload: "scripts", store.EnvWorkloadScripts: "sel@9,upd@1", store.EnvWorkloadFigure: "upd"}}}
	both := "NOPM (New-Orders/min; a pgbench workload's figure of merit per minute)"
	for _, c := range []struct {
		name        string
		runs        []RunData
		title, unit string
	}{
		{"TPC-C", []RunData{tpcc, tpcc}, "NOPM", "NOPM (New-Orders/min)"},
		{"every script", []RunData{every, every}, "TPM of every script", "TPM of every script (transactions/min)"},
		{"one script", []RunData{upd}, "TPM of upd", "TPM of upd (transactions/min)"},
		{"both kinds", []RunData{tpcc, every}, "NOPM", both},
		{"both kinds, workload first", []RunData{every, tpcc}, "NOPM", both},
		{"two figures", []RunData{every, upd, every}, "NOPM", both},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Page{Runs: c.runs}
			if title, unit := p.nopmNames(); title != c.title || unit != c.unit {
				t.Errorf("got %q, %q; want %q, %q", title, unit, c.title, c.unit)
			}
		})
	}
}
