package driver

import "time"

// TxnLog receives a Workload step's measured transactions as they end,
// as pgbench -l logs them (StepConfig.TxnLog; package txnlog writes
// pgbench's format).
type TxnLog interface {
	// User is the log of the user numbered id (UserConfig.ID), called by
	// that user's goroutine alone.
	User(id int) func(TxnEntry)
	// Window says where the measured interval lies: before the step's
	// first transaction, and again whenever a StepControl moves it.
	Window(start, end time.Time)
}

// TxnStatus is how a logged transaction ended.
type TxnStatus uint8

const (
	// TxnCompleted: the transaction committed (after its retries).
	TxnCompleted TxnStatus = iota
	// TxnFailed: it ended in an error (its last try's).
	TxnFailed
	// TxnSkipped: a paced transaction not sent, already further behind
	// its schedule than Spec.LatencyLimit.
	TxnSkipped
)

// TxnEntry is one transaction of the measured interval.
type TxnEntry struct {
	Kind   int // the Workload's kind (a pgbench script's number)
	Status TxnStatus
	// Latency is a completed transaction's, from its scheduled start
	// when the step is paced; 0 for a failed or skipped one, as pgbench
	// logs them.
	Latency time.Duration
	// Lag is a paced, completed transaction's schedule lag.
	Lag   time.Duration
	End   time.Time // when it ended (was skipped)
	Tries int       // the tries made (a skipped one's 0)
	Err   error     // a failed one's
}

// Chooser is a User that can say its next transaction's kind before
// running it (drawn once: the next Run runs it). A skipped transaction is
// logged with it, as pgbench logs the transactions it skips with the
// script of the one that runs after them.
type Chooser interface {
	Next() int
}

// logDone logs a finished (completed or failed) measured transaction.
func (u *user) logDone(kind int, sched, start, end time.Time, tries int, err error) {
	e := TxnEntry{Kind: kind, End: end, Tries: tries, Err: err}
	switch {
	case err != nil:
		e.Status = TxnFailed
	case sched.IsZero():
		e.Latency = end.Sub(start)
	default:
		e.Latency, e.Lag = end.Sub(sched), max(start.Sub(sched), 0)
	}
	u.logTxn(e)
}

// logSkipped logs a skipped measured transaction.
func (u *user) logSkipped() {
	kind := 0
	if c, ok := u.wu.(Chooser); ok {
		kind = c.Next()
	}
	u.logTxn(TxnEntry{Kind: kind, Status: TxnSkipped, End: time.Now()})
}
