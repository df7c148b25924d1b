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
//     quota is a slower single server). For c > 1 it is Seidmann's
//     approximation of a multi-server station: a queue of demand D/c plus a
//     delay of D·(c−1)/c. Where the driver runs on the server's cores
//     (Config.DriverShares: 2 cores of a 2-core host), the station is the
//     one of two that bounds the throughput lower: the host's cores for the
//     server's and the driver's CPU per transaction together, or the
//     server's quota for its own (the driver's CPU then a delay). A
//     transaction's CPU time is spent once, so it is never two queues in
//     series. Cores other processes kept busy during the
//     measured step (the host's busy CPU less the server's and driver's)
//     are taken away from every configuration's cores in proportion.
//   - Reads and writes: under an IOPS limit L, a queue of demand I/Os/L;
//     under a bandwidth limit B, a queue of demand bytes/B; with no limit, a
//     delay of I/Os × the measured device time per I/O.
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
// points (never below the smallest's reads). With one point the reads do
// not change with the cache, and a prediction says so (Prediction.Notes).
//
// # The interval
//
// Each prediction is made three times: with the demands' means calibrated
// to the measured throughput, with every demand at its interval's upper
// end calibrated to the throughput interval's lower end (pessimistic), and
// with every demand at its lower end calibrated to the upper end
// (optimistic). At the measured configuration the band is the
// measurement's own interval; away from it the demands' spread widens it.
//
// # The limiting resource
//
// The queue with the highest utilisation (X × demand per server) at the
// predicted throughput, when it is at least Saturated (80 %); otherwise
// "concurrency": the users and their waits limit the throughput, and more
// of any resource would not raise it.
package capacity
