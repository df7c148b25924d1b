package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
)

// WriteValidity prints the validity verdict of each step of a run, each
// violated share with its sampling spread (results show).
func WriteValidity(w io.Writer, run store.Run, steps []store.Step) { writeValidity(w, run, steps) }

// writeValidity prints the validity verdict of each step of a run for the
// end-of-run summary.
func writeValidity(w io.Writer, run store.Run, steps []store.Step) {
	if name, _ := run.Workload(); name != "" {
		fmt.Fprintf(w, "  · workload %s: not TPC-C: no validity verdict\n", name)
		return
	}
	if run.Isolation != "" && run.Isolation != "spec" {
		fmt.Fprintf(w, "  ✗ isolation %s: not spec-compliant (TPC-C 3.4 needs level 3)\n", run.Isolation)
	}
	for _, a := range analysis.Aggregate(steps) {
		v := a.Validity
		switch {
		case v == nil:
		case v.Valid:
			fmt.Fprintf(w, "  ✓ %d users: a valid TPC-C measurement interval\n", a.Users)
		default:
			fmt.Fprintf(w, "  ✗ %d users: not a valid TPC-C measurement interval: %s\n", a.Users, strings.Join(v.Violations, "; "))
		}
	}
}
