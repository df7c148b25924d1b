// Command gatepower prints the power of rightsize ab's gate (the paired t
// test of the rounds' log ratios, one-sided) against a regression of
// -effect % in NOPM, for rounds scattering by -scatter % (the standard
// deviation of their log ratios, as ab --json's scatter_pct), and the
// smallest regression it detects with 80 % power: bench/gate.sh's
// expected figures beside the measured ones.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/rightsize/rightsize/steady"
)

func main() {
	scatter := flag.Float64("scatter", 0, "standard deviation of the rounds' log ratios, %")
	rounds := flag.Int("rounds", 3, "rounds per gate")
	effect := flag.Float64("effect", 10, "true regression, % slower")
	alpha := flag.Float64("alpha", 0.05, "the gate's one-sided level (over its gated figures)")
	flag.Parse()
	if *scatter <= 0 || *rounds < 2 || *effect <= 0 || *effect >= 100 {
		fmt.Fprintln(os.Stderr, "gatepower: give -scatter above 0, -rounds 2 or more, -effect between 0 and 100")
		os.Exit(2)
	}
	d := -math.Log(1 - *effect/100)
	p := steady.PairedPower(d, *scatter/100, *rounds, *alpha, 1)
	m := steady.MinDetectable(*scatter/100, *rounds, *alpha, 0.8, 1)
	fmt.Printf("%.0f %.1f\n", p*100, (1-math.Exp(-m))*100)
}
