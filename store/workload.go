package store

// The environment keys of a run of a workload that is not TPC-C (absent
// for TPC-C): its name (tpcb, scripts) and its scripts with their
// weights ("tpcb-like@1"). Its steps' transaction types are the scripts'
// names.
const (
	EnvWorkload        = "workload"
	EnvWorkloadScripts = "workload.scripts"
)

// Workload is the workload r ran: "" for TPC-C, else its name and its
// scripts with their weights.
func (r *Run) Workload() (name, scripts string) {
	return r.Env[EnvWorkload], r.Env[EnvWorkloadScripts]
}
