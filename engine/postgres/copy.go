package postgres

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/tpcc"
)

// The binary COPY format (PostgreSQL's "COPY", File Formats): a header,
// then per row the field count and each field as its length (-1: NULL) and
// its binary value, then a trailer of -1.
var (
	copyHeader  = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	copyTrailer = []byte{0xff, 0xff}
)

// copyChunk is how much encoded data copyReader gathers before handing it
// on (pgconn sends what one Read returns as one CopyData message of up to
// 64 KiB).
const copyChunk = 60 << 10

// copySQL is the COPY statement that loads columns of table in binary.
func copySQL(table string, columns []string) string {
	cols := make([]string, len(columns))
	for i, c := range columns {
		cols[i] = pgx.Identifier{c}.Sanitize()
	}
	return fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", pgx.Identifier{table}.Sanitize(), strings.Join(cols, ", "))
}

// copyReader is an io.Reader of a RowSource's typed rows in binary COPY
// format, for pgconn's CopyFrom. Rows are encoded into one reused buffer:
// nothing is allocated per row. The columns' types are the schema's:
// KindInt an int, KindDecimal a numeric, KindText a char or varchar,
// KindTime a timestamp.
type copyReader struct {
	rows    tpcc.RowSource
	buf     []byte // encoded rows; buf[off:] not yet read
	off     int
	started bool
	done    bool

	lastTime time.Time // the last timestamp encoded, and its encoding
	lastTS   int64
}

func newCopyReader(rows tpcc.RowSource) *copyReader {
	return &copyReader{rows: rows, buf: make([]byte, 0, copyChunk+4096)}
}

// Read fills p with the next encoded rows.
func (c *copyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if c.off == len(c.buf) {
			if c.done {
				break
			}
			if err := c.fill(); err != nil {
				return n, err
			}
		}
		k := copy(p[n:], c.buf[c.off:])
		c.off += k
		n += k
	}
	if n == 0 && c.done {
		return 0, io.EOF
	}
	return n, nil
}

// fill encodes rows until a chunk is ready or the rows end.
func (c *copyReader) fill() error {
	c.buf, c.off = c.buf[:0], 0
	if !c.started {
		c.buf = append(c.buf, copyHeader...)
		c.started = true
	}
	for len(c.buf) < copyChunk {
		if !c.rows.Next() {
			if err := c.rows.Err(); err != nil {
				return err
			}
			c.buf = append(c.buf, copyTrailer...)
			c.done = true
			return nil
		}
		var err error
		if c.buf, err = c.appendRow(c.buf, c.rows.Row()); err != nil {
			return err
		}
	}
	return nil
}

// appendRow appends one row's field count and fields.
func (c *copyReader) appendRow(buf []byte, row []tpcc.Value) ([]byte, error) {
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(row)))
	for i := range row {
		v := &row[i]
		switch v.Kind {
		case tpcc.KindNull:
			buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
		case tpcc.KindInt:
			buf = binary.BigEndian.AppendUint32(buf, 4)
			buf = binary.BigEndian.AppendUint32(buf, uint32(int32(v.Int)))
		case tpcc.KindDecimal:
			buf = appendNumeric(buf, v.Int, int(v.Scale))
		case tpcc.KindText:
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(v.Text)))
			buf = append(buf, v.Text...)
		case tpcc.KindTime:
			buf = binary.BigEndian.AppendUint32(buf, 8)
			buf = binary.BigEndian.AppendUint64(buf, uint64(c.timestamp(v.Time)))
		default:
			return buf, fmt.Errorf("column %d: unknown kind %d", i, v.Kind)
		}
	}
	return buf, nil
}

// microsFromUnixToY2K is 2000-01-01, PostgreSQL's epoch, in Unix microseconds.
const microsFromUnixToY2K = 946684800 * 1_000_000

// timestamp encodes t as a timestamp without time zone: its wall clock in
// its location, as pgx does, in microseconds since 2000-01-01. Generated
// rows share one time, so the last one is remembered.
func (c *copyReader) timestamp(t time.Time) int64 {
	if t.Equal(c.lastTime) && t.Location() == c.lastTime.Location() {
		return c.lastTS
	}
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	c.lastTime, c.lastTS = t, wall.Unix()*1_000_000+int64(wall.Nanosecond())/1000-microsFromUnixToY2K
	return c.lastTS
}

// appendNumeric appends the field of the numeric x/10^scale (scale 0..4)
// in PostgreSQL's binary form: digit count, weight of the first digit,
// sign, display scale, then base-10000 digits. Scaling to 1/10000 puts the
// decimal point at a digit boundary: the last digit is the fraction.
func appendNumeric(buf []byte, x int64, scale int) []byte {
	sign := uint16(0)
	u := uint64(x)
	if x < 0 {
		sign, u = 0x4000, uint64(-x)
	}
	for range 4 - scale {
		u *= 10
	}
	var digits [6]uint16 // an int64 of 1/10000 has at most 5 digits above the fraction
	n := 0
	for ; u > 0; u /= 10000 {
		digits[n] = uint16(u % 10000) // least significant first
		n++
	}
	weight := n - 2 // digit i (most significant first) weighs 10000^(weight-i)
	lo := 0
	for lo < n && digits[lo] == 0 { // trailing zero digits are left out
		lo++
	}
	if lo == n { // zero
		n, lo, weight = 0, 0, 0
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(8+2*(n-lo)))
	buf = binary.BigEndian.AppendUint16(buf, uint16(n-lo))
	buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
	buf = binary.BigEndian.AppendUint16(buf, sign)
	buf = binary.BigEndian.AppendUint16(buf, uint16(scale))
	for i := n - 1; i >= lo; i-- {
		buf = binary.BigEndian.AppendUint16(buf, digits[i])
	}
	return buf
}
