package validity

import (
	"fmt"
	"math"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// ChanceLevel is the share of a correct driver's intervals whose counts
// fall within the spread a deviation is set against. It is 99 % rather
// than 95 % because up to seven shares are judged per step: at 95 % a
// correct driver would be called wrong in about one step in three.
var ChanceLevel = 0.99

// The shares a correct driver deals on average: 1 % of New-Orders roll
// back (2.4.1.4), 1 % of order lines come from a remote warehouse
// (2.4.1.5) and 15 % of Payments pay at a remote one (2.5.1.2), each drawn
// independently, so their counts are binomial.
const (
	rollbackP      = 0.01
	remoteLineP    = 0.01
	remotePaymentP = 0.15
)

// binomialChance sets count of of against Binomial(of, p): the counts
// between the (1-ChanceLevel)/2 and (1+ChanceLevel)/2 quantiles are
// within chance.
func binomialChance(rule string, count, of int64, p float64) store.Chance {
	b := distuv.Binomial{N: float64(of), P: p}
	tail := (1 - ChanceLevel) / 2
	c := store.Chance{Rule: rule, Count: count, Of: of, ExpectedPct: 100 * p, Expected: float64(of) * p,
		Low: binomialQuantile(b, of, tail), High: binomialQuantile(b, of, 1-tail), Level: ChanceLevel, Model: "binomial"}
	c.Within = c.Low <= count && count <= c.High
	return c
}

// binomialQuantile is the smallest k in 0..n with P(X <= k) >= q (what
// scipy's binom.ppf returns).
func binomialQuantile(b distuv.Binomial, n int64, q float64) int64 {
	lo, hi := int64(0), n
	for lo < hi {
		mid := lo + (hi-lo)/2
		if b.CDF(float64(mid)) >= q {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// deckChance sets the count of one transaction type among of completed
// transactions against the spread of a deck-dealt mix: every user deals
// from its own shuffled deck of tpcc.DeckCards, so its count of a type
// over whole decks is fixed and only the two partial decks at the ends of
// the interval vary (deckVariance). The spread is the normal one of that
// variance, widened outward to whole counts. It assumes the users dealt
// equal numbers of cards (of/users) and the interval caught each at a
// uniform position of its deck, and leaves out that with keying and think
// times a card's type changes how many cards fit in the interval: a
// simulation of such terminals (TestDeckModelWithThinkTimes) spreads by
// 0.73 % where the model says 0.76 % (binomial 0.85 %), so the model errs
// slightly wide.
func deckChance(ty tpcc.TxnType, count, of int64, users int) store.Chance {
	n := deckSize()
	p := float64(tpcc.DeckCards[ty]) / float64(n)
	c := store.Chance{Rule: "mix_" + ty.String(), Count: count, Of: of, ExpectedPct: 100 * p, Expected: float64(of) * p,
		Level: ChanceLevel, Model: "deck"}
	if users < 1 {
		users = 1
	}
	sd := math.Sqrt(float64(users) * deckVariance(float64(of)/float64(users), p, n))
	z := distuv.UnitNormal.Quantile(1 - (1-ChanceLevel)/2)
	c.Low = max(0, int64(math.Floor(c.Expected-z*sd)))
	c.High = min(of, int64(math.Ceil(c.Expected+z*sd)))
	c.Within = c.Low <= count && count <= c.High
	return c
}

// deckVariance is the variance of the number of cards of one type (share
// p of a deck of n) among k consecutive cards one user deals, when the
// interval catches the user at a position s uniform over the deck: the
// cards are the tail of one deck (n-s cards, or all k when they fit),
// whole decks (no variance) and the head of a last deck, each partial a
// hypergeometric draw from its own shuffle. A fractional k (of/users) is
// interpolated between its neighbours.
func deckVariance(k, p float64, n int) float64 {
	lo := math.Floor(k)
	f := k - lo
	v := deckVarianceWhole(int64(lo), p, n)
	if f == 0 {
		return v
	}
	return (1-f)*v + f*deckVarianceWhole(int64(lo)+1, p, n)
}

func deckVarianceWhole(k int64, p float64, n int) float64 {
	h := func(m int64) float64 { return float64(m) * p * (1 - p) * float64(int64(n)-m) / float64(n-1) }
	var sum float64
	for s := int64(0); s < int64(n); s++ {
		if s+k <= int64(n) {
			sum += h(k)
			continue
		}
		sum += h(int64(n)-s) + h((k-(int64(n)-s))%int64(n))
	}
	return sum / float64(n)
}

// chanceNote is what a violation adds about its sampling spread: within
// chance at these counts (a longer interval settles it) or outside it.
func chanceNote(c store.Chance, at string) string {
	pr := message.NewPrinter(language.English)
	expected := pr.Sprintf("%s %% expected", trimPct(c.ExpectedPct))
	if c.Model == "deck" {
		expected = pr.Sprintf("the %d-card deck deals %.2f %%", deckSize(), c.ExpectedPct)
	}
	spread := pr.Sprintf("%s: %.0f, %d-%d by chance alone at %.0f %%", expected, c.Expected, c.Low, c.High, 100*c.Level)
	if c.Within {
		return fmt.Sprintf("within chance at %s (%s): a longer interval settles it", at, spread)
	}
	return fmt.Sprintf("outside chance at %s (%s): the driver or the database is wrong", at, spread)
}

// deckSize is the number of cards in the deck.
func deckSize() int {
	n := 0
	for _, k := range tpcc.DeckCards {
		n += k
	}
	return n
}

func trimPct(x float64) string { return fmt.Sprint(math.Round(x*100) / 100) }

// counted formats n with thousands separators and a unit.
func counted(n int64, unit string) string {
	return message.NewPrinter(language.English).Sprintf("%d %s", n, unit)
}
