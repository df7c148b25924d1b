package tpcb

import (
	"context"
	"os/exec"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func connector(dsn string) Connect {
	return func(ctx context.Context) (*pgconn.PgConn, error) { return pgconn.Connect(ctx, dsn) }
}

// facts are what must be equal between our build and pgbench -i's: the
// columns, the table options, the indexes and a digest of every row.
var facts = []string{
	`select string_agg(format('%s.%s %s %s %s', table_name, column_name, data_type, character_maximum_length, is_nullable), '; ' order by table_name, ordinal_position)
	   from information_schema.columns where table_name like 'pgbench%'`,
	`select string_agg(format('%s %s', relname, reloptions), '; ' order by relname) from pg_class where relname like 'pgbench%'`,
	`select string_agg(indexdef, '; ' order by indexname) from pg_indexes where tablename like 'pgbench%'`,
	`select md5(string_agg(t::text, ',' order by bid)) from pgbench_branches t`,
	`select md5(string_agg(t::text, ',' order by tid)) from pgbench_tellers t`,
	`select md5(string_agg(t::text, ',' order by aid)) from pgbench_accounts t`,
	`select count(*)::text || ' ' || coalesce(sum(octet_length(filler)), 0) from pgbench_accounts`,
	`select count(*)::text from pgbench_history`,
	`select coalesce(string_agg(format('%s %s', relname, pg_get_expr(relpartbound, oid)), '; ' order by relname), '') from pg_class
	   where relname like 'pgbench%' and relispartition`,
	`select coalesce(pg_get_partkeydef('pgbench_accounts'::regclass), '')`,
	`select string_agg(format('%s %s', relname, relpersistence), '; ' order by relname) from pg_class where relname like 'pgbench%'`,
	`select coalesce(string_agg(format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)), '; ' order by conname, conrelid::regclass::text), '') from pg_constraint
	   where conrelid::regclass::text like 'pgbench%'`,
}

func readFacts(t *testing.T, dsn string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	out := make([]string, len(facts))
	for i, q := range facts {
		if err := conn.QueryRow(ctx, q).Scan(&out[i]); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return out
}

// TestBuildEqualsPgbenchInit builds scale 2 with 3 loaders and compares it
// with what pgbench -i -s 2 builds, with pgbench's layout options too
// (-F, --partitions, --partition-method); ReadLayout reads each back.
func TestBuildEqualsPgbenchInit(t *testing.T) {
	pgbench := pgtest.Pgbench(t)
	for _, c := range []struct {
		layout Layout
		flags  []string
	}{
		{Layout{}, nil},
		{Layout{FillFactor: 90}, []string{"-F", "90"}},
		{Layout{Partitions: 3}, []string{"--partitions", "3"}},
		{Layout{Partitions: 2, PartitionMethod: "hash", FillFactor: 80}, []string{"--partitions", "2", "--partition-method", "hash", "-F", "80"}},
		{Layout{Partitions: 1, PartitionMethod: "range"}, []string{"--partitions", "1", "--partition-method", "range"}},
		{Layout{Unlogged: true, ForeignKeys: true}, []string{"--unlogged-tables", "--foreign-keys"}},
		{Layout{Partitions: 2, Unlogged: true, ForeignKeys: true}, []string{"--partitions", "2", "--unlogged-tables", "--foreign-keys"}},
	} {
		t.Run(c.layout.String(), func(t *testing.T) {
			ours, theirs := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
			res, err := Build(context.Background(), connector(ours), Config{Scale: 2, Loaders: 3, Layout: c.layout})
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != 2+20+200000 {
				t.Errorf("%d rows loaded, want %d", res.Rows, 2+20+200000)
			}
			if out, err := exec.Command(pgbench, append(append([]string{"-i", "-q", "-s", "2"}, c.flags...), theirs)...).CombinedOutput(); err != nil {
				t.Fatalf("pgbench -i: %v\n%s", err, out)
			}
			a, b := readFacts(t, ours), readFacts(t, theirs)
			for i := range facts {
				if a[i] != b[i] {
					t.Errorf("%s:\n ours    %s\n pgbench %s", facts[i], a[i], b[i])
				}
			}
			if a[6] != "200000 16800000" {
				t.Errorf("accounts and filler bytes %q, want 200000 rows of 84 bytes", a[6])
			}
			checkLayout(t, ours, c.layout)
		})
	}
}

// checkLayout reads dsn's layout: it must be want's.
func checkLayout(t *testing.T, dsn string, want Layout) {
	t.Helper()
	conn, err := pgconn.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if got, err := ReadLayout(context.Background(), conn); err != nil || got != want.Normal() {
		t.Errorf("layout read %+v (%v), want %+v", got, err, want.Normal())
	}
}

func TestBuildRejects(t *testing.T) {
	for _, cfg := range []Config{{Scale: 0}, {Scale: 1, Layout: Layout{FillFactor: 5}}, {Scale: 1, Layout: Layout{FillFactor: 101}},
		{Scale: 1, Layout: Layout{Partitions: -1}}, {Scale: 1, Layout: Layout{Partitions: 2, PartitionMethod: "list"}},
		{Scale: 1, Layout: Layout{PartitionMethod: "hash"}}} {
		if _, err := Build(context.Background(), nil, cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

func TestTotalsCheck(t *testing.T) {
	good := Totals{Branches: 2, Tellers: 20, Accounts: 200000, History: 3, BranchSum: 7, TellerSum: 7, AccountSum: 7, DeltaSum: 7}
	if err := good.Check(2); err != nil {
		t.Error(err)
	}
	for _, bad := range []func(*Totals){
		func(t *Totals) { t.Accounts-- }, func(t *Totals) { t.Tellers++ }, func(t *Totals) { t.Branches = 1 },
		func(t *Totals) { t.TellerSum++ }, func(t *Totals) { t.BranchSum-- }, func(t *Totals) { t.AccountSum = 0 },
	} {
		b := good
		bad(&b)
		if b.Check(2) == nil {
			t.Errorf("%+v passed", b)
		}
	}
}
