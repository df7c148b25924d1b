package main

import (
	"io"

	"github.com/rightsize/rightsize/fit"
)

// printPredictions prints a fit's round of predictions, once something
// was predicted.
func printPredictions(w io.Writer, r fit.Round, currency string) {
	for _, t := range r.Trials {
		if t.Prediction != nil {
			r.WriteText(w, currency) //nolint:errcheck // progress output
			return
		}
	}
}
