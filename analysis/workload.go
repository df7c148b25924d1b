package analysis

import (
	"slices"

	"github.com/rightsize/rightsize/store"
)

// WorkloadStep is the throughput of a workload that is not TPC-C at one
// number of users, over its repeats: transactions per second overall and
// per script (its transaction types).
type WorkloadStep struct {
	Users   int                `json:"users"`
	TPS     float64            `json:"tps"`
	Scripts map[string]float64 `json:"script_tps"`
}

// WorkloadTPS is each users step's TPS, overall and per script: the
// completed transactions over the measured seconds of its repeats.
func WorkloadTPS(steps []store.Step) []WorkloadStep {
	secs := map[int]float64{}
	counts := map[int]map[string]int64{}
	var users []int
	for i := range steps {
		s := &steps[i]
		if _, ok := counts[s.Users]; !ok {
			counts[s.Users] = map[string]int64{}
			users = append(users, s.Users)
		}
		secs[s.Users] += s.MeasureEnd.Sub(s.MeasureStart).Seconds()
		for _, t := range s.Txn {
			counts[s.Users][t.Type] += t.Count
		}
	}
	slices.Sort(users)
	out := make([]WorkloadStep, 0, len(users))
	for _, u := range users {
		ws := WorkloadStep{Users: u, Scripts: map[string]float64{}}
		if d := secs[u]; d > 0 {
			for name, n := range counts[u] {
				ws.Scripts[name] = float64(n) / d
				ws.TPS += float64(n) / d
			}
		}
		out = append(out, ws)
	}
	return out
}

// WorkloadSummary is what results show --json (Document.Workload) and
// run --json say of a workload that is not TPC-C: its name, its scripts
// with their weights, the script whose rate is the figure of merit (""
// for every script's), each users step's TPS overall and per script, and
// its statements' latencies (without their histograms, which the steps
// hold).
type WorkloadSummary struct {
	Name       string          `json:"name"`
	Scripts    string          `json:"scripts"`
	Figure     string          `json:"figure,omitempty"`
	Steps      []WorkloadStep  `json:"steps"`
	Statements []StatementStep `json:"statements,omitempty"`
}

// Workload summarises run's workload (nil for TPC-C).
func Workload(run *store.Run, steps []store.Step) *WorkloadSummary {
	name, scripts := run.Workload()
	if name == "" {
		return nil
	}
	m, _ := run.WorkloadMerit()
	ws := &WorkloadSummary{Name: name, Scripts: scripts, Figure: m.Txn, Steps: WorkloadTPS(steps), Statements: WorkloadStatements(steps)}
	for i := range ws.Statements {
		for j := range ws.Statements[i].Statements {
			ws.Statements[i].Statements[j].Hist = nil
		}
	}
	return ws
}
