package analysis

import (
	"math"
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
	// Seconds is the measured time of its repeats, Transactions the
	// completed transactions in it.
	Seconds      float64 `json:"measured_seconds"`
	Transactions int64   `json:"transactions"`
	// ScheduleLagMs is a paced run's mean schedule lag over the repeats
	// (weighted by their transactions), ScheduleLagMaxMs the largest; 0
	// when run --rate did not pace it.
	ScheduleLagMs    float64 `json:"schedule_lag_ms,omitempty"`
	ScheduleLagMaxMs float64 `json:"schedule_lag_max_ms,omitempty"`
	// Late and Skipped are the repeats' transactions over the run's
	// latency limit: completed late, and (paced) skipped, never sent.
	Late    int64 `json:"late_txns,omitempty"`
	Skipped int64 `json:"skipped_txns,omitempty"`
}

// LatePct is the share of the transactions that were late or skipped
// (pgbench -L's two counts over those it processed), %.
func (s WorkloadStep) LatePct() float64 {
	n := s.Transactions + s.Skipped
	if n == 0 {
		return 0
	}
	return 100 * float64(s.Late+s.Skipped) / float64(n)
}

// Behind reports whether a step paced at rate transactions per second
// completed fewer than its schedule can explain: more than three standard
// deviations of a Poisson count below rate × Seconds, so its users could
// not keep the schedule.
func (s WorkloadStep) Behind(rate float64) bool {
	want := rate * s.Seconds
	return rate > 0 && want > 0 && float64(s.Transactions) < want-3*math.Sqrt(want)
}

// WorkloadTPS is each users step's TPS, overall and per script: the
// completed transactions over the measured seconds of its repeats; and a
// paced run's schedule lag.
func WorkloadTPS(steps []store.Step) []WorkloadStep {
	secs := map[int]float64{}
	counts := map[int]map[string]int64{}
	lags := map[int]*WorkloadStep{} // the lags, weighted by transactions
	var users []int
	for i := range steps {
		s := &steps[i]
		if _, ok := counts[s.Users]; !ok {
			counts[s.Users] = map[string]int64{}
			lags[s.Users] = &WorkloadStep{}
			users = append(users, s.Users)
		}
		secs[s.Users] += s.MeasureEnd.Sub(s.MeasureStart).Seconds()
		var n int64
		for _, t := range s.Txn {
			counts[s.Users][t.Type] += t.Count
			n += t.Count
		}
		l := lags[s.Users]
		l.Transactions += n
		l.ScheduleLagMs += s.ScheduleLagMs * float64(n)
		l.ScheduleLagMaxMs = max(l.ScheduleLagMaxMs, s.ScheduleLagMaxMs)
		l.Late += s.LateTxns
		l.Skipped += s.SkippedTxns
	}
	slices.Sort(users)
	out := make([]WorkloadStep, 0, len(users))
	for _, u := range users {
		l := lags[u]
		ws := WorkloadStep{Users: u, Scripts: map[string]float64{}, Seconds: secs[u], Transactions: l.Transactions, ScheduleLagMaxMs: l.ScheduleLagMaxMs,
			Late: l.Late, Skipped: l.Skipped}
		if l.Transactions > 0 {
			ws.ScheduleLagMs = l.ScheduleLagMs / float64(l.Transactions)
		}
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
