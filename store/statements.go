package store

import "github.com/rightsize/rightsize/figures"

// StatementSummary is one command of a workload's script (a line of a
// pgbench script, meta-commands included, as pgbench -r reports them)
// over a step's measured interval: the time it took in each completed
// transaction that ran it (the tries of a retried one added up). TPC-C's
// steps have none.
type StatementSummary struct {
	// Type is the script, the transaction type its summary has.
	Type   string  `json:"type"`
	Index  int     `json:"index"` // the command's place in its script, from 0
	Line   int     `json:"line"`  // where it starts in its file, from 1
	Text   string  `json:"text"`  // its first line
	Count  int64   `json:"count"` // times it ran
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P95Ms  float64 `json:"p95_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
	MeanMs float64 `json:"mean_ms"`
	// Hist is the latency histogram in microseconds (see HdrHist).
	Hist HdrHist `json:"hist,omitempty"`
}

// statementFields are a statement summary's stored columns (the
// figures' names are figures.Txn*'s).
func statementFields(t *StatementSummary) []field {
	return []field{{"txn_type", &t.Type}, {"stmt_index", &t.Index}, {"line", &t.Line}, {"text", &t.Text},
		{figures.TxnCount.Name, &t.Count}, {figures.TxnP50.Name, &t.P50Ms}, {figures.TxnP90.Name, &t.P90Ms},
		{figures.TxnP95.Name, &t.P95Ms}, {figures.TxnP99.Name, &t.P99Ms}, {figures.TxnMax.Name, &t.MaxMs},
		{figures.TxnMean.Name, &t.MeanMs}, {"hist", &t.Hist}}
}
