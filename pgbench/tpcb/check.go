package tpcb

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/pgbench/script"
)

// Totals are the figures that tell whether a TPC-B database is whole: its
// row counts and the sums of its balances and of the history's deltas.
type Totals struct {
	Branches, Tellers, Accounts, History       int64
	BranchSum, TellerSum, AccountSum, DeltaSum int64
}

// ReadTotals reads the totals of the database conn is connected to.
func ReadTotals(ctx context.Context, conn *pgconn.PgConn) (Totals, error) {
	const q = `select (select count(*) from pgbench_branches), (select count(*) from pgbench_tellers),
		(select count(*) from pgbench_accounts), (select count(*) from pgbench_history),
		(select coalesce(sum(bbalance), 0) from pgbench_branches), (select coalesce(sum(tbalance), 0) from pgbench_tellers),
		(select coalesce(sum(abalance), 0) from pgbench_accounts), (select coalesce(sum(delta), 0) from pgbench_history)`
	res := conn.ExecParams(ctx, q, nil, nil, nil, nil).Read()
	if res.Err != nil {
		return Totals{}, fmt.Errorf("read the TPC-B totals: %w", res.Err)
	}
	var t Totals
	for i, p := range []*int64{&t.Branches, &t.Tellers, &t.Accounts, &t.History, &t.BranchSum, &t.TellerSum, &t.AccountSum, &t.DeltaSum} {
		v, err := strconv.ParseInt(string(res.Rows[0][i]), 10, 64)
		if err != nil {
			return Totals{}, fmt.Errorf("read the TPC-B totals: column %d: %w", i+1, err)
		}
		*p = v
	}
	return t, nil
}

// Check says whether t is what a database built at scale and then run
// with tpcb-like transactions only holds: pgbench's row counts, and the
// balances of branches, tellers and accounts each summing to the
// history's deltas (simple-update moves accounts only, so it breaks
// the equality; pgbench's run truncates the history, which breaks it too).
func (t Totals) Check(scale int) error {
	s := int64(scale)
	if t.Branches != script.Branches*s || t.Tellers != script.Tellers*s || t.Accounts != script.Accounts*s {
		return fmt.Errorf("%d branches, %d tellers, %d accounts: scale %d has %d, %d, %d",
			t.Branches, t.Tellers, t.Accounts, scale, script.Branches*s, script.Tellers*s, script.Accounts*s)
	}
	if t.BranchSum != t.DeltaSum || t.TellerSum != t.DeltaSum || t.AccountSum != t.DeltaSum {
		return fmt.Errorf("balances of branches %d, tellers %d, accounts %d: each should be the history's deltas, %d",
			t.BranchSum, t.TellerSum, t.AccountSum, t.DeltaSum)
	}
	return nil
}

// ReadLayout reads how the database conn is connected to stores pgbench's
// tables (Layout.Normal's form): the tellers' fill factor and persistence,
// which pgbench -i gives every table, pgbench_accounts' partitions, and
// whether the history has its foreign keys.
func ReadLayout(ctx context.Context, conn *pgconn.PgConn) (Layout, error) {
	const q = `select coalesce((select option_value from pg_options_to_table((select reloptions from pg_class where oid = 'pgbench_tellers'::regclass))
			where option_name = 'fillfactor'), '100'),
		(select count(*) from pg_inherits where inhparent = 'pgbench_accounts'::regclass)::text,
		coalesce((select case partstrat when 'r' then 'range' when 'h' then 'hash' else partstrat::text end
			from pg_partitioned_table where partrelid = 'pgbench_accounts'::regclass), ''),
		(select relpersistence = 'u' from pg_class where oid = 'pgbench_tellers'::regclass)::text,
		exists (select 1 from pg_constraint where conrelid = 'pgbench_history'::regclass and contype = 'f')::text`
	res := conn.ExecParams(ctx, q, nil, nil, nil, nil).Read()
	if res.Err != nil {
		return Layout{}, fmt.Errorf("read the TPC-B tables' layout: %w", res.Err)
	}
	var l Layout
	var err error
	if l.FillFactor, err = strconv.Atoi(string(res.Rows[0][0])); err == nil {
		l.Partitions, err = strconv.Atoi(string(res.Rows[0][1]))
	}
	l.PartitionMethod = string(res.Rows[0][2])
	l.Unlogged, l.ForeignKeys = string(res.Rows[0][3]) == "true", string(res.Rows[0][4]) == "true"
	if err != nil {
		return Layout{}, fmt.Errorf("read the TPC-B tables' layout: %w", err)
	}
	return l, nil
}
