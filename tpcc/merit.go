package tpcc

import "github.com/rightsize/rightsize/store"

// Merit is TPC-C's figure of merit: New-Order, whose per-minute rate is
// NOPM and whose p90 latency is gated.
var Merit = store.Merit{Txn: NewOrderTxn.String(), PerMinute: "NOPM"}
