package postgres

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5/pgtype"
)

// Binary-format decoding of the procedures' result columns, in place: no
// value is copied but text, which goes into the caller's tpcc.ScreenText.

// columns walks a result row's columns in order, keeping the first error.
type columns struct {
	vals [][]byte
	i    int
	err  error
}

// next returns the next column's value, or nil (and an error) when it is
// NULL, missing or not n bytes long (n < 0: any length).
func (c *columns) next(n int) []byte {
	if c.err != nil {
		return nil
	}
	if c.i >= len(c.vals) {
		c.err = fmt.Errorf("column %d missing (%d columns)", c.i+1, len(c.vals))
		return nil
	}
	v := c.vals[c.i]
	c.i++
	switch {
	case v == nil:
		c.err = fmt.Errorf("column %d is NULL", c.i)
		return nil
	case n >= 0 && len(v) != n:
		c.err = fmt.Errorf("column %d has %d bytes, want %d", c.i, len(v), n)
		return nil
	}
	return v
}

func (c *columns) int32() int32 {
	if v := c.next(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (c *columns) float64() float64 {
	if v := c.next(8); v != nil {
		return math.Float64frombits(binary.BigEndian.Uint64(v))
	}
	return 0
}

func (c *columns) bytes() []byte { return c.next(-1) }

// array opens the next column as a one-dimensional array of elem with n
// elements (n < 0: any number).
func (c *columns) array(elem uint32, n int) array {
	v := c.next(-1)
	if v == nil {
		return array{}
	}
	a, err := openArray(v, elem)
	if err == nil && n >= 0 && a.n != n {
		err = fmt.Errorf("%d elements, want %d", a.n, n)
	}
	if err != nil {
		c.err = fmt.Errorf("column %d: %w", c.i, err)
	}
	return a
}

// array is a one-dimensional array in PostgreSQL's binary format: a header
// (dimensions, null flag, element type, then size and lower bound per
// dimension) and each element as a 4-byte length (-1: NULL) and its bytes.
type array struct {
	b   []byte // the elements not yet read
	n   int    // elements
	bad bool   // an element was NULL, truncated or of the wrong size
}

func openArray(v []byte, elem uint32) (array, error) {
	if len(v) < 12 {
		return array{}, fmt.Errorf("array of %d bytes", len(v))
	}
	dims := binary.BigEndian.Uint32(v)
	if t := binary.BigEndian.Uint32(v[8:]); t != elem {
		return array{}, fmt.Errorf("array of type OID %d, want %d", t, elem)
	}
	switch {
	case dims == 0:
		return array{}, nil
	case dims != 1 || len(v) < 20:
		return array{}, fmt.Errorf("array of %d dimensions in %d bytes, want 1", dims, len(v))
	}
	return array{b: v[20:], n: int(binary.BigEndian.Uint32(v[12:]))}, nil
}

// elem returns the next element's bytes, or nil (and sets bad) when it is
// NULL, truncated or not n bytes long (n < 0: any length).
func (a *array) elem(n int) []byte {
	if len(a.b) < 4 {
		a.bad = true
		return nil
	}
	l := int(int32(binary.BigEndian.Uint32(a.b)))
	if l < 0 || len(a.b)-4 < l || (n >= 0 && l != n) {
		a.bad = true
		return nil
	}
	v := a.b[4 : 4+l]
	a.b = a.b[4+l:]
	return v
}

func (a *array) int32() int32 {
	if v := a.elem(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (a *array) float64() float64 {
	if v := a.elem(8); v != nil {
		return math.Float64frombits(binary.BigEndian.Uint64(v))
	}
	return 0
}

func (a *array) bool() bool {
	v := a.elem(1)
	return v != nil && v[0] != 0
}

// check records in c an error for any bad element of the arrays.
func (c *columns) check(arrays ...*array) {
	for _, a := range arrays {
		if a.bad && c.err == nil {
			c.err = fmt.Errorf("an array element is NULL or malformed")
		}
	}
}

// Element types of the arrays the procedures return.
const (
	int4Elem   = pgtype.Int4OID
	float8Elem = pgtype.Float8OID
	textElem   = pgtype.TextOID
	boolElem   = pgtype.BoolOID
)
