package store

// Merit names the figure a workload is judged by: the transaction type
// whose per-minute rate is its throughput figure and whose latency its
// gates and fits read (TPC-C's is New-Order and NOPM, tpcc.Merit). A
// workload supplies its own value; code that judges a step reads the
// figure through it rather than by a type's name.
type Merit struct {
	// Txn is the transaction type judged, as stored in TxnSummary.Type.
	Txn string
	// PerMinute is the heading of its per-minute rate ("NOPM").
	PerMinute string
}

// Of is the summary of m's transaction among txns, nil when absent.
func (m Merit) Of(txns []TxnSummary) *TxnSummary {
	for i := range txns {
		if txns[i].Type == m.Txn {
			return &txns[i]
		}
	}
	return nil
}

// Counted is Of when the transaction completed at least once, else nil.
func (m Merit) Counted(txns []TxnSummary) *TxnSummary {
	if t := m.Of(txns); t != nil && t.Count > 0 {
		return t
	}
	return nil
}
