package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

// txnHeads are the headings of analysis.TxnColumns; with units, a latency's
// says "ms".
func txnHeads(units bool) []string {
	out := make([]string, 0, len(analysis.TxnColumns))
	for _, c := range analysis.TxnColumns {
		h := c.Head
		if units && c.Unit == figures.Ms {
			h += " ms"
		}
		out = append(out, h)
	}
	return out
}

// txnCells are t's figures in style s, "-" where its source lacked one.
func (s style) txnCells(t *store.TxnSummary) []string {
	out := make([]string, 0, len(analysis.TxnColumns))
	for _, c := range analysis.TxnColumns {
		if c.Missing(t) {
			out = append(out, "-")
			continue
		}
		out = append(out, s.num(c.Unit, c.Value(t)))
	}
	return out
}

// writeTxnTable is the one text renderer of a latency table: lead columns
// (left-aligned) then the transaction figures of each row, their headings
// with units when units is set.
func writeTxnTable(w io.Writer, lead []string, rows [][]string, units bool) {
	head := append(append([]string(nil), lead...), txnHeads(units)...)
	right := make([]bool, len(head))
	for i := range right {
		right[i] = i >= len(lead)
	}
	writeTable(w, head, rows, right)
}

// WriteTxnLatency writes results show's latency table: a row per users
// count and transaction type (all repeats merged), then the first error of
// each type that had one.
func WriteTxnLatency(w io.Writer, aggs []analysis.StepAggregate) {
	fmt.Fprintln(w, "\nlatency per transaction (ms, all repeats merged)")
	var rows [][]string
	var firstErrors []string
	for _, a := range aggs {
		for i := range a.Txn {
			t := &a.Txn[i]
			users := ""
			if i == 0 {
				users = strconv.Itoa(a.Users)
			}
			rows = append(rows, append([]string{users, t.Type}, plain.txnCells(t)...))
			if t.FirstError != "" {
				firstErrors = append(firstErrors, fmt.Sprintf("  %d users, first %s error: %s", a.Users, t.Type, t.FirstError))
			}
		}
	}
	writeTxnTable(w, []string{"users", "transaction"}, rows, false)
	for _, e := range firstErrors {
		fmt.Fprintln(w, e)
	}
}
