// Package capacity predicts what a capped database server sustains from
// the per-transaction demands measured on another configuration: the
// capacity planner's way of answering "is the cheaper server enough?"
// before measuring it.
//
// # Demands
//
// From one measured step (FromStep): per committed transaction, the
// server's CPU seconds (its process tree, sampled each second), the
// device reads and writes and their bytes (the server's cgroup I/O
// counters where the server ran in a group, else the host's disk counters;
// Demands.IOSource says which; on cgroup v1 the group's writes leave out
// buffered writeback, which v1 charges to the root group and its write
// limits do not throttle), the mean device time per I/O (the host's
// disks), and the run's
// concurrency (users, think and keying time per transaction). Each demand
// is a mean with an interval from its own spread across the measured
// seconds (batch means, package steady).
//
// # The model
//
// The run is a closed system of U users, each thinking Z seconds per
// transaction (0 without keying and think times). The server is a network
// of stations a transaction visits:
//
//   - CPU: demand D = CPU seconds per transaction over c cores (a fractional
//     quota is a slower single server). A quota below one core is
//     throttled every CFS period P (100 ms): the transactions in flight on
//     each of the n cores the group runs on (the host's, at most the
//     users) are frozen mid-transaction holding their locks; the model
//     charges n·D of each period's q·P seconds as lost, D/(1 − n·D/(q·P))
//     per transaction (throttleEfficiency; issue 48's statements-mode
//     sweep from one core: −9 % at 0.5, −18 % at 0.25, measured −10 % and
//     −14 %). In procedures mode D itself grows below one core,
//     D·(1/c)^0.125 (contentionGrowth: a call throttled mid-transaction
//     holds its locks while others wait; fitted on one of issue 48's
//     shapes, held out on the others, bench/PREDICT.md). How much a whole
//     core changes it depends on the host (×0.82-1.13 from two cores to
//     one), so where the base's host measured that change of whole cores
//     in earlier sweeps and fits (Demands.CoreGrowth, MinCoreRatios or
//     more), their median stands for it, and where it did not, D is taken
//     as the base's down to one core, and the prediction says so. For c > 1 it is Seidmann's
//     approximation of a multi-server station: a queue of demand D/c plus a
//     delay of D·(c−1)/c. Where the driver runs on the server's cores
//     (Config.DriverShares: 2 cores of a 2-core host), the station is the
//     one of two that bounds the throughput lower: the host's cores for the
//     server's and the driver's CPU per transaction together, or the
//     server's quota for its own (the driver's CPU then a delay). A
//     transaction's CPU time is spent once, so it is never two queues in
//     series. Cores other processes kept busy during the
//     measured step (the host's busy CPU less the server's and driver's)
//     are taken, spread evenly, from the host's cores: a quota keeps all
//     of its allowance while the cores it runs on (the whole cores it
//     spans) have that much free, and gets only what is free where they
//     have less (a quarter core on a host three quarters busy is a
//     quarter core; one core on a host half busy, half a core).
//     On a loaded host (issue 47), tpcb at cpus 1 and 0.5 used 0.24 and
//     0.29 of a core, the others taking the rest.
//   - Reads and writes: under an IOPS limit L, a queue of demand I/Os/L;
//     under a bandwidth limit B, a queue of demand bytes/B; with no limit, a
//     delay of I/Os × the measured device time per I/O. Under a write
//     bandwidth limit the base did not have, the bytes are those that
//     reach it (limitedWriteBytes): the log's bytes once (on cgroup v2,
//     where each step starts from a checkpoint, as many a transaction as
//     the base logged over the transactions the limited step completes:
//     WALCurve, the base's WAL second by second; after a checkpoint each
//     page's first change logs its whole image, so a step held to few
//     transactions logs more each), each WAL flush's
//     page once for the commits it groups, the rest (checkpoint fsyncs,
//     v2's writeback) as measured; a flush groups flushGroupShare (0.4,
//     fitted to three measured points) of the network's queue at the
//     limit, solved by iteration, and saves pages only where that groups
//     more than the base's own flushes did (its measured log syncs per
//     transaction: a log-bound base had grouped them already). The
//     base's calibration never scales an I/O limit's bound: where the
//     host's other work (background) leaves the network short of the
//     base's throughput, that background is reduced first (fitBackground).
//   - Other: a delay standing for everything the model does not name (lock
//     waits, log flushes, the network, the client). It is calibrated so the
//     network reproduces the measured throughput at the measured
//     configuration.
//
// Mean value analysis (exact, for n = 1..U users) gives the throughput X
// and the response time R. The operational laws bound it: X ≤ capacity /
// demand of every queue (cores / CPU per transaction, IOPS limit / I/Os per
// transaction, bandwidth / bytes per transaction). NOPM is X × the measured
// New-Order share; the New-Order p90 is the measured one scaled by the
// predicted response time over the measured one.
//
// # Reads and the cache
//
// Device reads per transaction depend on the memory the server may cache
// in, and so does its CPU per transaction (a page read from outside the
// engine's cache costs a system call and a copy even when the OS has it).
// ReadCurve holds both as measured at two or more cache sizes and
// interpolates each linearly in log2(cache size) between neighbours; above the
// largest size it keeps the largest's reads (more cache never needs more
// reads); below the smallest it extends the slope of the two smallest
// points (never below the smallest's reads).
//
// With one size measured, a PostgreSQL base of known warehouses follows
// TPC-C's miss-ratio curve (MissCurve): the pages of stock (per warehouse,
// items drawn by NURand(8191)), customer (per district, NURand(1023) of
// 3,000) and item, each accessed at the rate its rows' NURand
// probabilities give (the exact distribution, nurand), the leaves of their
// primary keys and of customer_last (by last name, NURand(255) of 1,000)
// by the same skew, and the order history Order-Status reads at random, as
// page groups of their own rates; Che's approximation of an LRU cache over
// them, the cache being shared_buffers as PostgreSQL's tuning sizes it
// from the cap, less a small hot set per warehouse (inner pages, the
// small tables, the inserts' tails). Indexes compete for the cache as
// pages of their own access rate, not as bytes set aside: a cache smaller
// than every warehouse's indexes still holds their hottest leaves
// (measured on 4 warehouses, nearly every buffer miss was a device read). Device reads scale by the ratio of the miss ratios where
// the base's is measurable, else add the change in modelled misses; the
// CPU adds cpuPerBufferMiss for each miss more. Without the warehouses the reads stay as measured.
// Either way the prediction says it had one size and its band carries the
// wider error of memory from one size.
//
// # The band
//
// Each prediction is made three times: with the demands' means calibrated
// to the measured throughput, with every demand at its interval's upper
// end calibrated to the throughput interval's lower end (pessimistic), and
// with every demand at its lower end calibrated to the upper end
// (optimistic). The band is at least that, and at least ± Band.Rel about
// the prediction: in quadrature, the model's own error on each kind of
// change from the base (ModelErrors: cores, a quota below a core, IOPS,
// bandwidth, memory, memory from one size, statements mode, another
// engine version; each with where it was measured), the base's
// measurement interval, and the drift between the base's run and the run
// that will measure the prediction (√2 × the between-run CV × 1.645 for
// 90 %; Demands.Drift where the store's A/A history of the base's
// configuration measured it, at Student's t of its degrees of freedom
// instead of 1.645, else DefaultDrift, 10 %).
// The demands' spread alone is never the band. Fit, sweeps, the report
// and --json all show this band.
//
// # The limiting resource
//
// The queue with the highest utilisation (X × demand per server) at the
// predicted throughput, when it is at least Saturated (80 %); otherwise
// "concurrency": the users and their waits limit the throughput, and more
// of any resource would not raise it.
package capacity
