// Command rightsize measures the smallest, cheapest database configuration
// that still meets a transaction throughput and latency: TPC-C-derived
// build, run and check, on an embedded PostgreSQL or an existing server.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/diskspace"
)

// version and commit are set at build time with
// -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = ""
)

// exitError carries an exit code: 2 for bad input, 1 for a failed check.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput wraps err as a bad-input error (exit code 2).
func badInput(err error) error { return &exitError{code: 2, err: err} }

func main() {
	ctx, stop := signalContext()
	defer stop()
	root := newRootCmd()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "rightsize:", err)
	os.Exit(exitCode(err))
}

// exitCode maps an error to the process exit code: the code of an
// exitError, 1 for an interrupted or failed run, 2 otherwise (bad input).
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var short *diskspace.ShortError
	if errors.As(err, &short) { // a sweep's or fit's copy that cannot fit
		return 2
	}
	return 1
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "rightsize",
		Short:         "Find the smallest database server that still meets your throughput and latency",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("store", "", "results store: a SQLite file or postgres://... (default $RIGHTSIZE_STORE or ./rightsize.db)")
	root.AddCommand(newCalibrateCmd()) // the drift between runs (calibrate.go); the other commands below
	var cpuProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of rightsize itself to this file")
	root.PersistentFlags().Lookup("cpuprofile").Hidden = true
	var profFile *os.File
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		profFile = f
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(cmd *cobra.Command, _ []string) {
		// after the command's own output, and only when it succeeded:
		// bad input stays one line
		for _, name := range []string{"target", "store"} {
			warnPassword(cmd.ErrOrStderr(), cmd.Flags(), name)
		}
		if profFile != nil {
			pprof.StopCPUProfile()
			profFile.Close()
		}
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	root.AddCommand(newBuildCmd(), newRunCmd(), newCheckCmd(), newQuickstartCmd(), newEnginesCmd(), newProbeCmd(), newResultsCmd(), newReportCmd(), newCompareCmd(), newImportCmd(), newProbesCmd(), newCostCmd(), newStudyCmd(), newFitCmd(), newSweepCmd(), newDoctorCmd(), newK8sCmd(), newNeighbourCmd(), newHistoryCmd())
	root.AddCommand(newABCmd())
	return root
}
