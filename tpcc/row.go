package tpcc

import (
	"time"
)

// Kind is the type of one generated column value.
type Kind uint8

// The kinds of Value.
const (
	KindNull    Kind = iota
	KindInt          // a 32-bit integer in Int
	KindDecimal      // Int scaled by 10^Scale: an exact amount or rate
	KindText         // Text
	KindTime         // Time
)

// Value is one column of a generated row, typed so an engine can encode it
// without reflection or allocation. Text aliases the source's buffers: it
// is valid until the next call to Next, like the row itself.
type Value struct {
	Kind  Kind
	Scale uint8 // decimals of a KindDecimal (at most 4)
	Int   int64
	Text  []byte
	Time  time.Time
}

// Float64 is a KindDecimal's value as a float64 (what Values gives).
func (v Value) Float64() float64 { return float64(v.Int) / pow10[v.Scale] }

var pow10 = [...]float64{1, 10, 100, 1000, 10000}

func intValue(i int) Value { return Value{Kind: KindInt, Int: int64(i)} }

// centsValue is an amount of c cents; rateValue a rate of r/10000.
func centsValue(c int64) Value { return Value{Kind: KindDecimal, Scale: 2, Int: c} }
func rateValue(r int) Value    { return Value{Kind: KindDecimal, Scale: 4, Int: int64(r)} }

// rowBuilder holds the row a generator fills: its values and, back to
// back, the bytes of its text columns (reset at every row, so a warmed-up
// generator allocates nothing per row).
type rowBuilder struct {
	row   []Value
	text  []byte
	start int
	anys  []any  // the row as Values gives it, made on demand
	texts []byte // scratch of Values: the row's texts in one string
}

func newRowBuilder(t Table) rowBuilder {
	return rowBuilder{row: make([]Value, len(Columns[t])), anys: make([]any, len(Columns[t]))}
}

// next begins a text column: the generator appends its bytes to the
// returned slice and hands the result to str.
func (b *rowBuilder) next() []byte {
	b.start = len(b.text)
	return b.text
}

// str makes column i the text appended since next.
func (b *rowBuilder) str(i int, text []byte) {
	b.text = text
	b.row[i] = Value{Kind: KindText, Text: text[b.start:len(text):len(text)]}
}

// constant makes column i a fixed text.
func (b *rowBuilder) constant(i int, s string) {
	b.str(i, append(b.next(), s...))
}

// values converts the typed row into the []any of RowSource.Values:
// int32, float64, string, time.Time or nil. All texts of a row share one
// string (one allocation per row).
func (b *rowBuilder) values() []any {
	b.texts = b.texts[:0]
	for _, v := range b.row {
		if v.Kind == KindText {
			b.texts = append(b.texts, v.Text...)
		}
	}
	all, at := string(b.texts), 0
	for i, v := range b.row {
		switch v.Kind {
		case KindNull:
			b.anys[i] = nil
		case KindInt:
			b.anys[i] = int32(v.Int)
		case KindDecimal:
			b.anys[i] = v.Float64()
		case KindText:
			b.anys[i] = all[at : at+len(v.Text)]
			at += len(v.Text)
		case KindTime:
			b.anys[i] = v.Time
		}
	}
	return b.anys
}
