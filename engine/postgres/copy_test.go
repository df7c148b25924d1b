package postgres

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/tpcc"
)

// sliceRows is a RowSource over fixed typed rows.
type sliceRows struct {
	rows [][]tpcc.Value
	i    int
	err  error
}

func (s *sliceRows) Next() bool             { s.i++; return s.i <= len(s.rows) }
func (s *sliceRows) Row() []tpcc.Value      { return s.rows[s.i-1] }
func (s *sliceRows) Values() ([]any, error) { return anys(s.Row()), nil }
func (s *sliceRows) Err() error             { return s.err }

// anys is a typed row as pgx's CopyFrom takes it (what Load sent before).
func anys(row []tpcc.Value) []any {
	out := make([]any, len(row))
	for i, v := range row {
		switch v.Kind {
		case tpcc.KindInt:
			out[i] = int32(v.Int)
		case tpcc.KindDecimal:
			out[i] = v.Float64()
		case tpcc.KindText:
			out[i] = string(v.Text)
		case tpcc.KindTime:
			out[i] = v.Time
		}
	}
	return out
}

func dec(x int64, scale uint8) tpcc.Value {
	return tpcc.Value{Kind: tpcc.KindDecimal, Int: x, Scale: scale}
}

// TestCopyMatchesPgx: rows sent by copyReader are stored exactly as the
// same values sent by pgx's CopyFrom: integers, numerics of both scales the
// schema uses (zero, signs, trailing and leading zero digits, the largest
// values), texts into varchar and char, timestamps in and out of UTC, NULLs.
func TestCopyMatchesPgx(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	cols := []string{"k", "amount", "rate", "name", "code", "at"}
	for _, tab := range []string{"via_reader", "via_pgx"} {
		if _, err := conn.Exec(ctx, "CREATE TABLE "+tab+` (k int, amount numeric(12,2), rate numeric(4,4),
			name varchar(30), code char(4), at timestamp)`); err != nil {
			t.Fatal(err)
		}
	}
	berlin := time.FixedZone("CET", 3600)
	at := time.Date(2026, 11, 22, 21, 5, 7, 123456789, time.UTC)
	text := func(s string) tpcc.Value { return tpcc.Value{Kind: tpcc.KindText, Text: []byte(s)} }
	stamp := func(t time.Time) tpcc.Value { return tpcc.Value{Kind: tpcc.KindTime, Time: t} }
	rows := [][]tpcc.Value{
		{{Kind: tpcc.KindInt, Int: 1}, dec(0, 2), dec(0, 4), text(""), text("OE"), stamp(at)},
		{{Kind: tpcc.KindInt, Int: -2147483648}, dec(1, 2), dec(1, 4), text("ORIGINAL"), text("abcd"), stamp(at.In(berlin))},
		{{Kind: tpcc.KindInt, Int: 2147483647}, dec(-1000, 2), dec(9999, 4), text("x"), text("1"), stamp(time.Date(1999, 12, 31, 23, 59, 59, 999999000, time.UTC))},
		{{Kind: tpcc.KindInt, Int: 4}, dec(30000000, 2), dec(1000, 4), text("ünïcode"), {}, stamp(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))},
		{{Kind: tpcc.KindInt, Int: 5}, dec(999999999999, 2), dec(-5000, 4), {}, text("GC"), {}},
		{{}, dec(-999999999999, 2), dec(20, 4), text("100000"), text("BC"), stamp(at)},
		{{Kind: tpcc.KindInt, Int: 7}, dec(100000000, 2), dec(2000, 4), text("a"), text("b"), stamp(at)},
		{{Kind: tpcc.KindInt, Int: 8}, dec(5, 2), {}, text("a"), text("b"), stamp(at)},
		{{Kind: tpcc.KindInt, Int: 9}, dec(10000, 2), dec(-1, 4), text("a"), text("b"), stamp(at)},
	}
	tag, err := conn.PgConn().CopyFrom(ctx, newCopyReader(&sliceRows{rows: rows}), copySQL("via_reader", cols))
	if err != nil || tag.RowsAffected() != int64(len(rows)) {
		t.Fatalf("copy: %v (%d rows)", err, tag.RowsAffected())
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"via_pgx"}, cols, &sliceRows{rows: rows}); err != nil {
		t.Fatal(err)
	}
	dump := func(tab string) []string {
		var out []string
		r, err := conn.Query(ctx, "SELECT x::text FROM "+tab+" x ORDER BY ctid")
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var s string
			if err := r.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	got, want := dump("via_reader"), dump("via_pgx")
	if len(got) != len(rows) || len(got) != len(want) {
		t.Fatalf("%d rows, pgx %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("row %d: %s, pgx stored %s", i, got[i], want[i])
		}
	}
}

// TestCopyReaderChunks: small reads and pgconn's 64 KiB reads see the same
// stream, which ends with the trailer and then io.EOF; a source's error
// comes out of Read.
func TestCopyReaderChunks(t *testing.T) {
	cfg := tpcc.GenConfig{Seed: 3, LoadTime: time.Unix(1e9, 0), Constants: tpcc.LoadConstants(3)}
	read := func(size int) []byte {
		r := newCopyReader(tpcc.Generate(cfg, tpcc.Customer, 1))
		var out []byte
		p := make([]byte, size)
		for {
			n, err := r.Read(p)
			out = append(out, p[:n]...)
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	small, big := read(777), read(65531)
	if !bytes.Equal(small, big) {
		t.Fatalf("reads of 777 bytes give %d bytes, of 64 KiB %d", len(small), len(big))
	}
	if !bytes.HasPrefix(big, copyHeader) || !bytes.HasSuffix(big, copyTrailer) {
		t.Fatal("no header or trailer")
	}
	boom := errors.New("boom")
	r := newCopyReader(&sliceRows{err: boom})
	if _, err := io.ReadAll(r); !errors.Is(err, boom) {
		t.Fatalf("source error: %v", err)
	}
}

// TestCopyReaderAllocatesNothing: encoding rows allocates nothing.
func TestCopyReaderAllocatesNothing(t *testing.T) {
	cfg := tpcc.GenConfig{Seed: 3, LoadTime: time.Unix(1e9, 0), Constants: tpcc.LoadConstants(3)}
	for _, table := range []tpcc.Table{tpcc.Stock, tpcc.Customer, tpcc.OrderLine} {
		r := newCopyReader(tpcc.Generate(cfg, table, 1))
		p := make([]byte, 64<<10)
		if allocs := testing.AllocsPerRun(100, func() {
			if _, err := r.Read(p); err != nil {
				t.Fatal(err)
			}
		}); allocs != 0 {
			t.Errorf("%s: %v allocations per 64 KiB read", table, allocs)
		}
	}
}

// BenchmarkCopyRow generates and encodes one row per op of each big table:
// "reader" as Load does now, "pgx" through Values and pgx's encoders as
// pgx's CopyFrom did before:
//
//	go test -run '^$' -bench CopyRow -benchmem ./engine/postgres
func BenchmarkCopyRow(b *testing.B) {
	cfg := tpcc.GenConfig{Seed: 1, LoadTime: time.Unix(1e9, 0), Constants: tpcc.LoadConstants(1)}
	for _, table := range []tpcc.Table{tpcc.Stock, tpcc.Customer, tpcc.OrderLine, tpcc.History, tpcc.Orders, tpcc.Item} {
		b.Run(string(table)+"/reader", func(b *testing.B) {
			src := tpcc.Generate(cfg, table, 1)
			c := newCopyReader(src)
			buf := make([]byte, 0, 4096)
			for b.Loop() {
				if !src.Next() {
					src = tpcc.Generate(cfg, table, 1)
					c.rows = src
					src.Next()
				}
				var err error
				if buf, err = c.appendRow(buf[:0], src.Row()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(table)+"/pgx", func(b *testing.B) {
			m := pgtype.NewMap()
			src := tpcc.Generate(cfg, table, 1)
			buf := make([]byte, 0, 4096)
			for b.Loop() {
				if !src.Next() {
					src = tpcc.Generate(cfg, table, 1)
					src.Next()
				}
				vals, _ := src.Values()
				buf = buf[:0]
				for i, v := range vals {
					var err error
					if buf, err = m.Encode(oidOf(src.Row()[i].Kind), pgx.BinaryFormatCode, v, buf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// oidOf is the schema's column type of a kind.
func oidOf(k tpcc.Kind) uint32 {
	switch k {
	case tpcc.KindDecimal:
		return pgtype.NumericOID
	case tpcc.KindText:
		return pgtype.VarcharOID
	case tpcc.KindTime:
		return pgtype.TimestampOID
	}
	return pgtype.Int4OID
}
