package fit

import (
	"fmt"

	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// merit is the figure the criteria judge: TPC-C's (nil Merit) or a
// workload's.
func (cr Criteria) merit() store.Merit {
	if cr.Merit != nil {
		return *cr.Merit
	}
	return tpcc.Merit
}

// figure names the judged rate in the text: "NOPM" for TPC-C, "TPM" (a
// workload's figure per minute) otherwise.
func (cr Criteria) figure() string {
	if cr.Merit != nil {
		return "TPM"
	}
	return "NOPM"
}

// P90Name names the latency MaxP90Ms limits: "New-Order p90" for TPC-C,
// "p90" (of the figure's transactions) for a workload.
func (cr Criteria) P90Name() string {
	if cr.Merit != nil {
		return "p90"
	}
	return "New-Order p90"
}

// workloadNote is the answer's note on a workload's target: its TPS of
// which scripts, as TPM ("" for TPC-C).
func (cr Criteria) workloadNote() string {
	if cr.Merit == nil {
		return ""
	}
	of := "every script"
	if !cr.Merit.All() {
		of = "script " + cr.Merit.Txn
	}
	return fmt.Sprintf(" [target TPS %s of %s = TPM %s]",
		fmtFloat(cr.TargetNOPM/60), of, fmtInt(cr.TargetNOPM))
}

func fmtFloat(v float64) string { return fmt.Sprintf("%g", float64(int64(v*100+0.5))/100) }
