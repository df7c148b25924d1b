// Package tpcb builds pgbench's TPC-B-like database as pgbench -i does
// (its four tables, the same columns, fill factor and data, then VACUUM
// ANALYZE and the primary keys), loading the rows with binary COPY from
// parallel connections, pgbench_accounts split by branch.
package tpcb

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/pgbench/script"
)

// Config is a build.
type Config struct {
	Scale   int // branches; 100,000 accounts each
	Loaders int // parallel connections (at least 1)
	Layout
}

// Layout is how pgbench's tables are stored, as pgbench -i's options say.
type Layout struct {
	FillFactor int // 10..100, 0 means pgbench's 100 (-F)
	// Partitions, when above 0, partitions pgbench_accounts by aid into
	// this many tables by PartitionMethod, range ("" too) or hash
	// (--partitions, --partition-method).
	Partitions      int
	PartitionMethod string
	// Unlogged creates every table unlogged (--unlogged-tables: no WAL,
	// emptied by a crash).
	Unlogged bool
	// ForeignKeys adds pgbench's foreign keys after the primary keys
	// (--foreign-keys, pgbench -i's step f).
	ForeignKeys bool
}

// Normal is l with its defaults written out, as ReadLayout reads them.
func (l Layout) Normal() Layout {
	l.FillFactor = cmp.Or(l.FillFactor, 100)
	if l.Partitions > 0 {
		l.PartitionMethod = cmp.Or(l.PartitionMethod, "range")
	}
	return l
}

// String says l as pgbench -i's options.
func (l Layout) String() string {
	l = l.Normal()
	s := fmt.Sprintf("fill factor %d", l.FillFactor)
	if l.Partitions > 0 {
		s += fmt.Sprintf(", %d %s partitions", l.Partitions, l.PartitionMethod)
	}
	if l.Unlogged {
		s += ", unlogged"
	}
	if l.ForeignKeys {
		s += ", foreign keys"
	}
	return s
}

// check says what is wrong with c.
func (c Config) check() error {
	if c.Scale < 1 {
		return fmt.Errorf("scale %d: it must be at least 1", c.Scale)
	}
	return c.Layout.Check()
}

// Check says what is wrong with l, naming build's flag (pgbench -i's
// option of the same name).
func (l Layout) Check() error {
	switch {
	case l.FillFactor != 0 && (l.FillFactor < 10 || l.FillFactor > 100):
		return fmt.Errorf("--fillfactor %d: give 10 to 100 (per cent of each page filled, pgbench -i -F)", l.FillFactor)
	case l.Partitions < 0:
		return fmt.Errorf("--partitions %d: give 0 (none) or more", l.Partitions)
	case l.PartitionMethod != "" && l.PartitionMethod != "range" && l.PartitionMethod != "hash":
		return fmt.Errorf("--partition-method %s: give range or hash", l.PartitionMethod)
	case l.PartitionMethod != "" && l.Partitions == 0:
		return fmt.Errorf("--partition-method %s partitions nothing: give --partitions N too", l.PartitionMethod)
	}
	return nil
}

// Result is what a build did.
type Result struct {
	Rows   int64
	Load   time.Duration // creating the tables and copying the rows
	Vacuum time.Duration
	Keys   time.Duration
}

// bigScale is the scale from which aid no longer fits an int (pgbench's
// SCALE_32BIT_THRESHOLD).
const bigScale = 20000

// Tables are pgbench's tables in the order pgbench creates them.
var Tables = []string{"pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches"}

// DDL is the CREATE TABLE statements of pgbench -i for cfg: its scale,
// fill factor and partitions.
func DDL(cfg Config) []string {
	fillFactor := cmp.Or(cfg.FillFactor, 100)
	aid := "int"
	if cfg.Scale >= bigScale {
		aid = "bigint"
	}
	with := fmt.Sprintf(" with (fillfactor=%d)", fillFactor)
	accounts := with
	if cfg.Partitions > 0 { // a partitioned table has no storage of its own
		accounts = " partition by " + cmp.Or(cfg.PartitionMethod, "range") + " (aid)"
	}
	create := cfg.create()
	return append([]string{
		create + " pgbench_history(tid int,bid int,aid " + aid + ",delta int,mtime timestamp,filler char(22))",
		create + " pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84))" + with,
		create + " pgbench_accounts(aid " + aid + " not null,bid int,abalance int,filler char(84))" + accounts,
		create + " pgbench_branches(bid int not null,bbalance int,filler char(88))" + with,
	}, partitionDDL(cfg, with)...)
}

// create begins each CREATE TABLE: "create table", or "create unlogged
// table".
func (l Layout) create() string {
	if l.Unlogged {
		return "create unlogged table"
	}
	return "create table"
}

// partitionDDL creates pgbench_accounts' partitions as pgbench's
// createPartitions does: by range, equal spans of aid with the first
// from minvalue and the last to maxvalue; by hash, remainders 0..n-1.
func partitionDDL(cfg Config, with string) []string {
	n := int64(cfg.Partitions)
	span := (script.Accounts*int64(cfg.Scale) + n - 1) / max(n, 1)
	var out []string
	for p := int64(1); p <= n; p++ {
		bound := fmt.Sprintf("with (modulus %d, remainder %d)", n, p-1)
		if cmp.Or(cfg.PartitionMethod, "range") == "range" {
			from, to := "minvalue", "maxvalue"
			if p > 1 {
				from = strconv.FormatInt((p-1)*span+1, 10)
			}
			if p < n {
				to = strconv.FormatInt(p*span+1, 10)
			}
			bound = "from (" + from + ") to (" + to + ")"
		}
		out = append(out, fmt.Sprintf("%s pgbench_accounts_%d partition of pgbench_accounts for values %s%s", cfg.create(), p, bound, with))
	}
	return out
}

// Connect opens one connection to the database being built.
type Connect func(ctx context.Context) (*pgconn.PgConn, error)

// Build drops pgbench's tables if they exist and builds them at cfg.Scale.
func Build(ctx context.Context, connect Connect, cfg Config) (Result, error) {
	var res Result
	if err := cfg.check(); err != nil {
		return res, err
	}
	cfg.Loaders = max(1, cfg.Loaders)
	t0 := time.Now()
	err := dropAndLoad(ctx, connect, cfg)
	res.Load = time.Since(t0)
	if err != nil {
		return res, err
	}
	res.Rows = int64(cfg.Scale) * (script.Branches + script.Tellers + script.Accounts)
	t1 := time.Now()
	if err := parallelSQL(ctx, connect, cfg.Loaders, vacuumSQL); err != nil {
		return res, err
	}
	res.Vacuum = time.Since(t1)
	t2 := time.Now()
	err = parallelSQL(ctx, connect, cfg.Loaders, keySQL)
	if err == nil && cfg.ForeignKeys { // one at a time: three are on pgbench_history
		err = parallelSQL(ctx, connect, 1, foreignKeySQL)
	}
	res.Keys = time.Since(t2)
	return res, err
}

// dropAndLoad drops pgbench's tables, creates them and loads their rows.
func dropAndLoad(ctx context.Context, connect Connect, cfg Config) error {
	err := withConn(ctx, connect, func(c *pgconn.PgConn) error {
		stmts := append([]string{"drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"}, DDL(cfg)...)
		for _, s := range stmts {
			if err := c.Exec(ctx, s).Close(); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	rows, err := load(ctx, connect, cfg)
	if want := int64(cfg.Scale) * (script.Branches + script.Tellers + script.Accounts); err == nil && rows != want {
		return fmt.Errorf("loaded %d rows, expected %d", rows, want)
	}
	return err
}

var vacuumSQL = []string{"vacuum analyze pgbench_branches", "vacuum analyze pgbench_tellers",
	"vacuum analyze pgbench_accounts", "vacuum analyze pgbench_history"}

// foreignKeySQL are pgbench -i's foreign keys (its step f).
var foreignKeySQL = []string{
	"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
	"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
}

var keySQL = []string{"alter table pgbench_branches add primary key (bid)",
	"alter table pgbench_tellers add primary key (tid)", "alter table pgbench_accounts add primary key (aid)"}

func withConn(ctx context.Context, connect Connect, f func(*pgconn.PgConn) error) error {
	c, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	return f(c)
}

// parallelSQL runs each statement once, up to n at a time.
func parallelSQL(ctx context.Context, connect Connect, n int, stmts []string) error {
	var next atomic.Int64
	return parallel(ctx, min(n, len(stmts)), func(ctx context.Context) error {
		return withConn(ctx, connect, func(c *pgconn.PgConn) error {
			for i := next.Add(1) - 1; i < int64(len(stmts)); i = next.Add(1) - 1 {
				if err := c.Exec(ctx, stmts[i]).Close(); err != nil {
					return fmt.Errorf("%s: %w", stmts[i], err)
				}
			}
			return nil
		})
	})
}

// parallel runs n workers; the first error cancels the others and is
// returned.
func parallel(ctx context.Context, n int, work func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(ctx); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && err != context.Canceled {
		return err
	}
	return ctx.Err()
}

// chunk is one COPY: rows [first, first+n) of table.
type chunk struct {
	table    string
	first, n int64
}

// load copies every row: branches and tellers in one COPY each, accounts
// one COPY per branch, shared among cfg.Loaders connections.
func load(ctx context.Context, connect Connect, cfg Config) (int64, error) {
	scale := int64(cfg.Scale)
	chunks := []chunk{{"pgbench_branches", 0, script.Branches * scale}, {"pgbench_tellers", 0, script.Tellers * scale}}
	for b := range scale {
		chunks = append(chunks, chunk{"pgbench_accounts", b * script.Accounts, script.Accounts})
	}
	var next, rows atomic.Int64
	err := parallel(ctx, min(cfg.Loaders, len(chunks)), func(ctx context.Context) error {
		return withConn(ctx, connect, func(c *pgconn.PgConn) error {
			var buf []byte
			for i := next.Add(1) - 1; i < int64(len(chunks)); i = next.Add(1) - 1 {
				ch := chunks[i]
				buf = encode(buf[:0], ch, cfg.Scale >= bigScale)
				tag, err := c.CopyFrom(ctx, bytesReader(buf), fmt.Sprintf("copy %s from stdin (format binary)", ch.table))
				if err != nil {
					return fmt.Errorf("copy %s rows %d..%d: %w", ch.table, ch.first+1, ch.first+ch.n, err)
				}
				rows.Add(tag.RowsAffected())
			}
			return nil
		})
	})
	return rows.Load(), err
}

// The binary COPY format's header and trailer.
var (
	copyHeader  = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	copyTrailer = []byte{0xff, 0xff}
)

// encode appends ch's rows in binary COPY format, as pgbench's rows:
// branches (bid, 0, NULL), tellers (tid, its branch, 0, NULL), accounts
// (aid, its branch, 0, ” which char(84) pads with blanks).
func encode(buf []byte, ch chunk, bigAid bool) []byte {
	buf = append(buf, copyHeader...)
	be := binary.BigEndian
	for k := ch.first; k < ch.first+ch.n; k++ {
		switch ch.table {
		case "pgbench_branches":
			buf = be.AppendUint16(buf, 3)
			buf = appendInt4(buf, k+1)
			buf = appendInt4(buf, 0)
			buf = be.AppendUint32(buf, 0xffffffff)
		case "pgbench_tellers":
			buf = be.AppendUint16(buf, 4)
			buf = appendInt4(buf, k+1)
			buf = appendInt4(buf, k/script.Tellers+1)
			buf = appendInt4(buf, 0)
			buf = be.AppendUint32(buf, 0xffffffff)
		default:
			buf = be.AppendUint16(buf, 4)
			if bigAid {
				buf = be.AppendUint32(buf, 8)
				buf = be.AppendUint64(buf, uint64(k+1))
			} else {
				buf = appendInt4(buf, k+1)
			}
			buf = appendInt4(buf, k/script.Accounts+1)
			buf = appendInt4(buf, 0)
			buf = be.AppendUint32(buf, 0)
		}
	}
	return append(buf, copyTrailer...)
}

func appendInt4(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 4)
	return binary.BigEndian.AppendUint32(buf, uint32(int32(v)))
}
