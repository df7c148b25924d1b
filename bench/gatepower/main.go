// Command gatepower prints the power of rightsize ab's gate (the paired t
// test of the rounds' log ratios, one-sided, of "B is not worse by more
// than -threshold %") against a regression of -effect % in NOPM, for
// rounds scattering by -scatter % (the standard deviation of their log
// ratios, as ab --json's scatter_pct), and the smallest regression it
// detects with 80 % power: bench/gate.sh's expected figures beside the
// measured ones.
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
	threshold := flag.Float64("threshold", 2.5, "the gate's --max-regression, %")
	flag.Parse()
	if *scatter <= 0 || *rounds < 2 || *effect < 0 || *effect >= 100 || *threshold < 0 || *threshold >= 100 {
		fmt.Fprintln(os.Stderr, "gatepower: give -scatter above 0, -rounds 2 or more, -effect and -threshold from 0 to below 100")
		os.Exit(2)
	}
	d, margin := -math.Log(1-*effect/100), -math.Log(1-*threshold/100)
	p := steady.PairedPowerBeyond(d, margin, *scatter/100, *rounds, *alpha)
	m := steady.MinDetectable(*scatter/100, *rounds, *alpha, 0.8, 1)
	fmt.Printf("%.0f %.1f\n", p*100, (1-math.Exp(-m-margin))*100)
}
