package store

import (
	"strconv"
	"time"
)

// The environment keys of a run of a workload that is not TPC-C (absent
// for TPC-C): its name (tpcb, scripts) and its scripts with their
// weights ("tpcb-like@1"). Its steps' transaction types are the scripts'
// names.
const (
	EnvWorkload        = "workload"
	EnvWorkloadScripts = "workload.scripts"
	// EnvWorkloadFigure names the script whose rate is the figure of
	// merit (--figure); absent: every script's.
	EnvWorkloadFigure = "workload.figure"
	// EnvRate is the rate, in transactions per second, that run --rate
	// paced the workload's users to (pgbench -R); absent: unpaced, each
	// user's transactions back to back.
	EnvRate = "workload.rate"
	// EnvLatencyLimit is run --latency-limit's limit (pgbench -L), a Go
	// duration ("50ms"); absent: none.
	EnvLatencyLimit = "workload.latency_limit"
	// EnvMaxTries is run --max-tries (pgbench --max-tries): how many times
	// a transaction may run when it fails with a serialization failure or
	// a deadlock; absent: the driver's default, 11.
	EnvMaxTries = "workload.max_tries"
	// EnvConnect is "true" when run --connect gave each transaction a new
	// connection (pgbench -C); absent: one connection per user.
	EnvConnect = "workload.connect"
)

// WorkloadConfigKeys are the environment keys of a workload that tell one
// configuration from another (the drift's and the growth model's).
var WorkloadConfigKeys = []string{EnvWorkload, EnvWorkloadScripts, EnvWorkloadFigure, EnvRate, EnvLatencyLimit, EnvMaxTries, EnvConnect}

// Workload is the workload r ran: "" for TPC-C, else its name and its
// scripts with their weights.
func (r *Run) Workload() (name, scripts string) {
	return r.Env[EnvWorkload], r.Env[EnvWorkloadScripts]
}

// WorkloadMerit is the figure of merit of a run of a workload that is not
// TPC-C: its --figure script's transactions, or every transaction (an
// empty Txn), per minute as TPM; false for TPC-C (tpcc.Merit).
func (r *Run) WorkloadMerit() (Merit, bool) {
	if name, _ := r.Workload(); name == "" {
		return Merit{}, false
	}
	return Merit{Txn: r.Env[EnvWorkloadFigure], PerMinute: "TPM"}, true
}

// Rate is the transactions per second run --rate paced r's workload to
// (EnvRate), 0 when it ran unpaced.
func (r *Run) Rate() float64 {
	rate, _ := strconv.ParseFloat(r.Env[EnvRate], 64)
	return rate
}

// LatencyLimit is the limit run --latency-limit counted r's late and
// skipped transactions against (EnvLatencyLimit), 0 without one.
func (r *Run) LatencyLimit() time.Duration {
	d, _ := time.ParseDuration(r.Env[EnvLatencyLimit])
	return d
}
