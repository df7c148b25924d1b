package scenario

import (
	"fmt"
	"os"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/txnlog"
)

// TxnLogSpec asks for a per-transaction log of each step of a pgbench
// workload (run --log, --log-prefix, --sampling-rate; pgbench -l's).
type TxnLogSpec struct {
	// Prefix names the logs, PREFIX.PID.STEP ("": no log), STEP counting
	// the run's steps from 1 over its repeats.
	Prefix string
	// SamplingRate is the share of transactions logged (0: all).
	SamplingRate float64
	// Aggregate, when above 0, logs a line per interval of this many
	// whole seconds instead (--aggregate-interval).
	Aggregate time.Duration
}

// TxnLogPath is step seq's (0-based) log of a process pid.
func TxnLogPath(prefix string, pid, seq int) string {
	return fmt.Sprintf("%s.%d.%d", prefix, pid, seq+1)
}

// openTxnLog creates step seq's log, nil when none is asked for.
func (a *Autopilot) openTxnLog(seq int, seed uint64) (*txnlog.File, error) {
	if a.TxnLog.Prefix == "" || a.Workload == nil {
		return nil, nil
	}
	tries := driver.DefaultMaxRetries + 1 // a workload that sets none: the step's
	if t, ok := a.Workload.(triedWorkload); ok && t.MaxTries() > 0 {
		tries = t.MaxTries()
	}
	opt := txnlog.Options{Lag: a.Rate > 0, Retries: tries != 1, SamplingRate: a.TxnLog.SamplingRate, Seed: seed, Aggregate: a.TxnLog.Aggregate}
	return txnlog.Create(TxnLogPath(a.TxnLog.Prefix, os.Getpid(), seq), opt)
}

// txnLogOf is the problem of a per-transaction log's options for a run of
// a pgbench workload or of TPC-C, whose steps measure duration (0: until
// a precision is reached), nil when none.
func txnLogOf(l TxnLogSpec, workload bool, duration time.Duration) error {
	if err := aggregateOf(l, duration); err != nil {
		return err
	}
	switch {
	case l.SamplingRate != 0 && l.Prefix == "":
		return OptionError{"sampling-rate", "samples the per-transaction log: add --log"}
	case l.SamplingRate < 0 || l.SamplingRate > 1:
		return OptionError{"sampling-rate", fmt.Sprintf("is the share of transactions logged: give one above 0 and at most 1, such as 0.01 (got %g)", l.SamplingRate)}
	case l.Prefix != "" && !workload:
		return OptionError{"log", "writes a pgbench workload's per-transaction log (add --workload tpcb or --workload FILE): TPC-C's latencies are kept in each step's histograms, per transaction type and per 10 s window"}
	}
	return nil
}

// aggregateOf is the problem of an aggregated log's interval, with
// pgbench's rules: whole seconds, with a log and without sampling, and a
// fixed measurement of a multiple of them.
func aggregateOf(l TxnLogSpec, duration time.Duration) error {
	a := l.Aggregate
	switch {
	case a == 0:
		return nil
	case a < time.Second || a%time.Second != 0:
		return OptionError{"aggregate-interval", fmt.Sprintf("is a number of seconds, 1 or more (got %s)", a)}
	case l.Prefix == "":
		return OptionError{"aggregate-interval", "aggregates the per-transaction log: add --log"}
	case l.SamplingRate != 0:
		return OptionError{"aggregate-interval", "aggregates every transaction: drop --sampling-rate (as pgbench, one or the other)"}
	case duration > 0 && duration%a != 0:
		return OptionError{"aggregate-interval", fmt.Sprintf("%d: the measured --duration %s must be a whole number of intervals, as pgbench -T's (such as %s)",
			a/time.Second, duration, (duration/a+1)*a)}
	}
	return nil
}

// fixedDuration is each step's measured duration, 0 when it ends at a
// precision (--duration auto).
func (o *RunOptions) fixedDuration() time.Duration {
	if o.Answer.DurationAuto {
		return 0
	}
	return o.Duration
}
