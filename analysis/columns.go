package analysis

import (
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// A Column is one figure of a step aggregate as every view reads it,
// defined once: Name is the figure's name (its key in run --json where it
// has one), Head its heading in a table, Unit what it counts (package
// report formats by it), Value where it comes from; Stat, when set, is the
// figure across repeats, whose mean Value is.
type Column struct {
	Name  string
	Head  string
	Unit  figures.Unit
	Value func(a *StepAggregate) float64
	Stat  func(a *StepAggregate) Stat
}

// The columns of a step aggregate the views show.
var (
	ColRepeats    = Column{Name: "repeats", Head: "repeats", Unit: figures.Count, Value: func(a *StepAggregate) float64 { return float64(a.Repeats) }}
	ColTPM        = statColumn("tpm", "TPM", func(a *StepAggregate) Stat { return a.TPM })
	ColNOPM       = statColumn("nopm", "NOPM", func(a *StepAggregate) Stat { return a.NOPM })
	ColTPMPerUser = statColumn("tpm_per_user", "TPM/user", func(a *StepAggregate) Stat { return a.TPMPerUser })
	// ColEfficiency is tpcc.KeyedEfficiency: meaningful for keyed runs only.
	ColEfficiency = Column{Name: "efficiency_pct", Head: "efficiency", Unit: figures.Percent,
		Value: func(a *StepAggregate) float64 { return tpcc.KeyedEfficiency(a.NOPM.Mean, a.Users) }}

	ColCPUBusy        = hostColumn(figures.CPUBusy)
	ColCPUIdle        = hostColumn(figures.CPUIdle)
	ColCPUIowait      = hostColumn(figures.CPUIowait)
	ColDiskLatency    = hostColumn(figures.DiskLatency)
	ColDiskReadIOPS   = hostColumn(figures.DiskReadIOPS)
	ColDiskWriteIOPS  = hostColumn(figures.DiskWriteIOPS)
	ColDiskIOPS       = Column{Name: "disk_iops", Head: "IOPS", Unit: figures.Count, Value: diskIOPS} // read + write
	ColServerCPU      = procsColumn(figures.ServerCPU)
	ColServerCPUPerTx = Column{Name: "server_cpu_us_per_txn", Head: "server µs/txn", Unit: figures.Us, Value: func(a *StepAggregate) float64 { return a.ServerCPUUsPerTxn }}
	ColDriverCPU      = procsColumn(figures.DriverCPU)
	ColDriverCPUPerTx = Column{Name: "driver_cpu_us_per_txn", Head: "driver µs/txn", Unit: figures.Us, Value: func(a *StepAggregate) float64 { return a.DriverCPUUsPerTxn }}
)

// The columns of the server's own I/O (its cgroup's counters; 0 when it
// ran in no group).
var (
	ColServerReadIOPS  = hostColumn(figures.ServerReadIOPS)
	ColServerWriteIOPS = hostColumn(figures.ServerWriteIOPS)
)

// statColumn is a column of a rate across repeats: its mean and its Stat.
func statColumn(name, head string, stat func(a *StepAggregate) Stat) Column {
	return Column{Name: name, Head: head, Unit: figures.Count, Stat: stat, Value: func(a *StepAggregate) float64 { return stat(a).Mean }}
}

// hostColumn is the column of host figure f of the step (the means of the
// repeats' host summaries).
func hostColumn(f figures.Figure) Column {
	return Column{Name: f.Name, Head: f.Head, Unit: f.Unit, Value: func(a *StepAggregate) float64 { return f.Of(&a.Host) }}
}

// procsColumn is the column of process figure f of the step (the means of
// the repeats').
func procsColumn(f figures.Figure) Column {
	return Column{Name: f.Name, Head: f.Head, Unit: f.Unit, Value: func(a *StepAggregate) float64 { return f.Of(&a.Procs) }}
}

func diskIOPS(a *StepAggregate) float64 {
	return figures.DiskReadIOPS.Of(&a.Host) + figures.DiskWriteIOPS.Of(&a.Host)
}

// A TxnColumn is one figure of a transaction type's summary as every view
// reads it, defined once: Name its JSON key, Head its heading, Unit what
// it counts, Value where it comes from.
type TxnColumn struct {
	Name  string
	Head  string
	Unit  figures.Unit
	Value func(t *store.TxnSummary) float64
}

// TxnColumns are the figures of a transaction type every latency table
// shows (results show, the summary, the report), in their order.
var TxnColumns = []TxnColumn{
	txnCount("count", "count", func(t *store.TxnSummary) int64 { return t.Count }),
	txnCount("rollbacks", "rolled back", func(t *store.TxnSummary) int64 { return t.Rollbacks }),
	txnCount("errors", "errors", func(t *store.TxnSummary) int64 { return t.Errors }),
	txnCount("retries", "retries", func(t *store.TxnSummary) int64 { return t.Retries }),
	{Name: "p50_ms", Head: "p50", Unit: figures.Ms, Value: func(t *store.TxnSummary) float64 { return t.P50Ms }},
	{Name: "p90_ms", Head: "p90", Unit: figures.Ms, Value: func(t *store.TxnSummary) float64 { return t.P90Ms }},
	{Name: "p95_ms", Head: "p95", Unit: figures.Ms, Value: func(t *store.TxnSummary) float64 { return t.P95Ms }},
	{Name: "p99_ms", Head: "p99", Unit: figures.Ms, Value: func(t *store.TxnSummary) float64 { return t.P99Ms }},
	{Name: "max_ms", Head: "max", Unit: figures.Ms, Value: func(t *store.TxnSummary) float64 { return t.MaxMs }},
	{Name: "mean_ms", Head: "mean", Unit: figures.Ms, Value: func(t *store.TxnSummary) float64 { return t.MeanMs }},
}

func txnCount(name, head string, v func(t *store.TxnSummary) int64) TxnColumn {
	return TxnColumn{Name: name, Head: head, Unit: figures.Count, Value: func(t *store.TxnSummary) float64 { return float64(v(t)) }}
}

// Missing tells that the source of t did not give figure c though it gave
// others (HammerDB's xtprof has no p90): a view shows "-", not 0.
func (c TxnColumn) Missing(t *store.TxnSummary) bool {
	return c.Unit == figures.Ms && c.Value(t) == 0 && (t.P99Ms > 0 || t.MaxMs > 0)
}
