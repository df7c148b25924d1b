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
	ColTPM        = statColumn(figures.TPM, func(a *StepAggregate) Stat { return a.TPM })
	ColNOPM       = statColumn(figures.NOPM, func(a *StepAggregate) Stat { return a.NOPM })
	ColTPMPerUser = statColumn(figures.TPMPerUser, func(a *StepAggregate) Stat { return a.TPMPerUser })
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
	ColServerCPUPerTx = stepColumn(figures.ServerCPUPerTxn, func(a *StepAggregate) float64 { return a.ServerCPUUsPerTxn })
	ColDriverCPU      = procsColumn(figures.DriverCPU)
	ColDriverCPUPerTx = stepColumn(figures.DriverCPUPerTxn, func(a *StepAggregate) float64 { return a.DriverCPUUsPerTxn })
	// ColDBTPM is the server-counted (HammerDB-style) TPM, 0 if unknown.
	ColDBTPM             = stepColumn(figures.DBTPM, func(a *StepAggregate) float64 { return a.DBTPM })
	ColSkippedDeliveries = stepColumn(figures.SkippedDeliveries, func(a *StepAggregate) float64 { return float64(a.SkippedDeliveries) })
	ColReconnects        = stepColumn(figures.Reconnects, func(a *StepAggregate) float64 { return float64(a.Reconnects) })
	ColScheduleLag       = stepColumn(figures.ScheduleLag, func(a *StepAggregate) float64 { return a.ScheduleLagMs })
	ColScheduleLagMax    = stepColumn(figures.ScheduleLagMax, func(a *StepAggregate) float64 { return a.ScheduleLagMaxMs })
	ColLateTxns          = stepColumn(figures.LateTxns, func(a *StepAggregate) float64 { return float64(a.LateTxns) })
	ColSkippedTxns       = stepColumn(figures.SkippedTxns, func(a *StepAggregate) float64 { return float64(a.SkippedTxns) })
	ColMeasuredSeconds   = Column{Name: "measured_seconds", Head: "measured s", Unit: figures.Count, Value: func(a *StepAggregate) float64 { return a.MeasuredSeconds }}
)

// The columns of the server's own I/O (its cgroup's counters; 0 when it
// ran in no group).
var (
	ColServerReadIOPS  = hostColumn(figures.ServerReadIOPS)
	ColServerWriteIOPS = hostColumn(figures.ServerWriteIOPS)
)

// statColumn is the column of step figure f across repeats: its mean and
// its Stat.
func statColumn(f figures.Figure, stat func(a *StepAggregate) Stat) Column {
	return Column{Name: f.Name, Head: f.Head, Unit: f.Unit, Stat: stat, Value: func(a *StepAggregate) float64 { return stat(a).Mean }}
}

// stepColumn is the column of step figure f, the mean across repeats
// value gives.
func stepColumn(f figures.Figure, value func(a *StepAggregate) float64) Column {
	return Column{Name: f.Name, Head: f.Head, Unit: f.Unit, Value: value}
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
	txnColumn(figures.TxnCount), txnColumn(figures.TxnRollbacks), txnColumn(figures.TxnErrors), txnColumn(figures.TxnRetries),
	txnColumn(figures.TxnP50), txnColumn(figures.TxnP90), txnColumn(figures.TxnP95), txnColumn(figures.TxnP99), txnColumn(figures.TxnMax),
	{Name: figures.TxnMean.Name, Head: figures.TxnMean.Head, Unit: figures.TxnMean.Unit, Value: func(t *store.TxnSummary) float64 { return t.MeanMs }},
}

// txnColumn is the column of transaction figure f (figures.Txn's).
func txnColumn(f figures.Figure) TxnColumn {
	return TxnColumn{Name: f.Name, Head: f.Head, Unit: f.Unit, Value: func(t *store.TxnSummary) float64 { return f.Of(&t.Txn) }}
}

// Missing tells that the source of t did not give figure c though it gave
// others (HammerDB's xtprof has no p90): a view shows "-", not 0.
func (c TxnColumn) Missing(t *store.TxnSummary) bool {
	return c.Unit == figures.Ms && c.Value(t) == 0 && (t.P99Ms > 0 || t.MaxMs > 0)
}
