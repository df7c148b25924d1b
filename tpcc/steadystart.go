package tpcc

import (
	"math"
	"time"
)

// StartPhase is where a terminal with keying and think times is in its
// cycle at a random instant of the steady state (see SteadyStart).
type StartPhase struct {
	// Keying says the terminal is keying a Txn, which it runs after Wait
	// (what is left of the keying time); otherwise it is thinking after a
	// Txn and shows its next menu after Wait.
	Keying bool
	Txn    TxnType
	Wait   time.Duration
}

// SteadyStart draws where a terminal starts in its cycle, so that
// terminals started together are spread over their cycles as in the
// steady state and complete transactions at the long-run rate from the
// first second.
//
// Each cycle is a card of the deck, its keying time and its think time
// (20.7 s on average). Terminals that all show their first menu at once
// move in step: the first pass's Payments and Order-Status complete
// together 2-3 s in, at twice the long-run rate, nothing completes for
// the next 15 s, then the New-Orders all come at 18 s, and the waves take
// most of a minute to die out. Clause 5.2.5 does not say when a terminal's
// first menu comes. At a random instant of the steady state a terminal is
// keying a card of type t with probability proportional to DeckCards[t] ×
// keying time, with what is left of it uniform; or thinking after one,
// proportional to DeckCards[t] × mean think time, with what is left of it
// exponential with the same mean (the think time is memoryless; its
// truncation at 10 means, a share of e^-10, is left out). A terminal
// keying runs that transaction before its first card: one transaction
// outside the deck, the one its user was keying when the step began.
func SteadyStart(r *Rand) StartPhase {
	var weight [2 * NumTxnTypes]float64 // keying t at t, thinking after t at NumTxnTypes+t
	total := 0.0
	for t, n := range DeckCards {
		weight[t] = float64(n) * float64(keying[t])
		weight[int(NumTxnTypes)+t] = float64(n) * float64(meanThink[t])
		total += weight[t] + weight[int(NumTxnTypes)+t]
	}
	u := r.Float64() * total
	i := 0
	for i < len(weight)-1 && u >= weight[i] {
		u -= weight[i]
		i++
	}
	if i < int(NumTxnTypes) {
		t := TxnType(i)
		return StartPhase{Keying: true, Txn: t, Wait: time.Duration(r.Float64() * float64(keying[t]))}
	}
	t := TxnType(i - int(NumTxnTypes))
	return StartPhase{Txn: t, Wait: time.Duration(expDraw(r, float64(meanThink[t])))}
}

// expDraw draws from the negative exponential distribution with mean mean.
func expDraw(r *Rand, mean float64) float64 {
	return -math.Log(1-r.Float64()) * mean // 1-u in (0, 1]
}
