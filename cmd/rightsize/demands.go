package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/steady"
)

// runDocument is results show --json's document: the stored run with the
// capacity model's demands of each step.
type runDocument struct {
	analysis.Document
	Demands []scenario.StepDemand `json:"demands,omitempty"`
}

// printDemands prints each step's demands per transaction, as the
// capacity model (fit, sweep --predict) uses them.
func printDemands(w io.Writer, ds []scenario.StepDemand) error {
	if len(ds) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\ndemands per transaction (the capacity model's inputs; ± the 95 % interval across the measured seconds)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "repeat\tusers\tserver CPU µs\tdriver CPU µs\treads\twrites\tread KB\twrite KB\tI/O from\tWAL KB\tblocks read\tdisk ms/IO\tdiagnosis\t")
	for _, d := range ds {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.0f\t%s\t%s\t%.1f\t%.1f\t%s\t%.1f\t%.2f\t%.2f\t%s\t\n", d.Repeat, d.Users, pm(d.CPUSec, 1e6, 0), d.DriverCPUSec*1e6,
			pm(d.ReadIOs, 1, 2), pm(d.WriteIOs, 1, 2), d.ReadBytes/1024, d.WriteBytes/1024, d.IOSource, d.WALBytes/1024, d.BlocksRead, d.IOSec*1000, dash(d.Bound))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "  I/O from: the reads and writes are the server's own (its cgroup's counters) or, when it ran in no group, the host's disks (every process's)")
	return nil
}

// pm is "mean ± half" of iv scaled, with prec decimals ("mean" when the
// half-width is unknown).
func pm(iv steady.Interval, scale float64, prec int) string {
	if iv.Half <= 0 {
		return fmt.Sprintf("%.*f", prec, iv.Mean*scale)
	}
	return fmt.Sprintf("%.*f ± %.*f", prec, iv.Mean*scale, prec, iv.Half*scale)
}
