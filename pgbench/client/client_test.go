package client

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/pgbench/script"
	"github.com/rightsize/rightsize/pgbench/tpcb"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// tpcbDatabase is a fresh copy of a scale-1 TPC-B database.
func tpcbDatabase(t testing.TB) string {
	return pgtest.NewDatabaseFrom(t, "tpcb1", func(dsn string) error {
		_, err := tpcb.Build(context.Background(), func(ctx context.Context) (*pgconn.PgConn, error) {
			return pgconn.Connect(ctx, dsn)
		}, tpcb.Config{Scale: 1, Loaders: 2})
		return err
	})
}

// opener opens a Session on a database for a test.
type opener func(t testing.TB, dsn string) Session

// sessions are the Session implementations every end-to-end test runs on:
// pgconn's, and PostgreSQL's engine's on the connection it takes over.
var sessions = []struct {
	name string
	open opener
}{
	{"pgconn", func(t testing.TB, dsn string) Session {
		conn, err := pgconn.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return &PgSession{Conn: conn}
	}},
	{"wire", func(t testing.TB, dsn string) Session {
		s, err := postgres.NewScriptSession(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		return s
	}},
}

func forEachSession(t *testing.T, test func(t *testing.T, open opener)) {
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) { test(t, s.open) })
	}
}

func newClient(t testing.TB, open opener, dsn string, cfg Config) *Client {
	t.Helper()
	c, err := New(open(t, dsn), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func builtin(t testing.TB, name string, weight int) *script.Script {
	t.Helper()
	b, err := script.FindBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := script.ParseBuiltin(b, weight)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// queryString returns the one value the last statement of q returns.
func queryString(t testing.TB, dsn, q string) string {
	t.Helper()
	conn, err := pgconn.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	results, err := conn.Exec(context.Background(), q).ReadAll() // simple protocol: q may hold several statements
	if err != nil || len(results) == 0 || len(results[len(results)-1].Rows) != 1 {
		t.Fatalf("%s: %v", q, err)
	}
	return string(results[len(results)-1].Rows[0][0])
}

// TestTPCBLikeBalances runs 4 clients × 150 tpcb-like transactions on a
// scale-1 build: every balance total must equal the history's, and the
// statistics must count every transaction and statement.
func TestTPCBLikeBalances(t *testing.T) { forEachSession(t, testTPCBLikeBalances) }

func testTPCBLikeBalances(t *testing.T, open opener) {
	dsn := tpcbDatabase(t)
	scripts := []*script.Script{builtin(t, "tpcb-like", 1)}
	const clients, txns = 4, 150
	seeds := Seeds(7, clients)
	var cs []*Client
	stats := make([]*Stats, clients)
	for i := range clients {
		cs = append(cs, newClient(t, open, dsn, Config{Scripts: scripts, ID: i, Scale: 1, Seed: seeds[i]}))
		stats[i] = NewStats(scripts)
	}
	runClients(t, cs, txns, stats)
	for _, s := range stats[1:] {
		stats[0].Merge(s)
	}
	st := stats[0].Scripts[0]
	if st.Count != clients*txns || st.Errors != 0 || st.Latency.TotalCount() != clients*txns {
		t.Errorf("script figures: %d transactions, %d errors, %d latencies", st.Count, st.Errors, st.Latency.TotalCount())
	}
	for _, c := range st.Commands {
		if c.Count != clients*txns || c.Latency.TotalCount() != clients*txns {
			t.Errorf("line %d %q: %d runs, %d latencies", c.Line, c.Text, c.Count, c.Latency.TotalCount())
		}
	}
	conn, err := pgconn.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	totals, err := tpcb.ReadTotals(context.Background(), conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := totals.Check(1); err != nil || totals.History != clients*txns || totals.DeltaSum == 0 {
		t.Errorf("%v; %d history rows, deltas %d", err, totals.History, totals.DeltaSum)
	}
}

// balancesQuery is every non-zero balance of accounts, tellers and
// branches.
const balancesQuery = `select concat_ws(' / ',
	(select md5(string_agg(format('%s %s', aid, abalance), ',' order by aid)) from pgbench_accounts where abalance <> 0),
	(select string_agg(format('%s %s', tid, tbalance), ',' order by tid) from pgbench_tellers),
	(select string_agg(format('%s %s', bid, bbalance), ',' order by bid) from pgbench_branches))`

// TestSameTransactionsAsPgbench runs one client of tpcb-like@1 +
// simple-update@2 for 60 transactions here and in pgbench -M PROTOCOL
// with the same --random-seed on two copies of the database, in each
// protocol: the same scripts chosen and the same random values give the
// same rows.
func TestSameTransactionsAsPgbench(t *testing.T) {
	for _, p := range []Protocol{Prepared, Extended, Simple} {
		t.Run(p.String(), func(t *testing.T) {
			forEachSession(t, func(t *testing.T, open opener) { testSameTransactionsAsPgbench(t, open, p) })
		})
	}
}

func testSameTransactionsAsPgbench(t *testing.T, open opener, p Protocol) {
	pgbench := pgtest.Pgbench(t)
	ours, theirs := tpcbDatabase(t), tpcbDatabase(t)
	const seed, txns = 4242, 60
	out, err := exec.Command(pgbench, "-n", "-M", p.String(), "-c", "1", "-j", "1", "-t", fmt.Sprint(txns),
		fmt.Sprintf("--random-seed=%d", seed), "-b", "tpcb-like@1", "-b", "simple-update@2", theirs).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	scripts := []*script.Script{builtin(t, "tpcb-like", 1), builtin(t, "simple-update", 2)}
	c := newClient(t, open, ours, Config{Scripts: scripts, Scale: 1, Seed: Seeds(seed, 1)[0], Protocol: p})
	sameRowsAsPgbench(t, c, txns, ours, theirs)
}

// sameRowsAsPgbench runs txns transactions of c, one client on ours, and
// compares the history, in the order it was written, and every balance
// with theirs, where pgbench ran as one client.
func sameRowsAsPgbench(t *testing.T, c *Client, txns int, ours, theirs string) {
	t.Helper()
	for range txns {
		if o := c.Run(context.Background()); o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	for _, q := range []string{
		`select md5(string_agg(format('%s %s %s %s', tid, bid, aid, delta), ',' order by ctid)) from pgbench_history`,
		balancesQuery,
	} {
		if a, b := queryString(t, ours, q), queryString(t, theirs, q); a != b {
			t.Errorf("%s:\n ours    %s\n pgbench %s", q, a, b)
		}
	}
}

// TestSameTransactionsAsPgbenchThreeClients runs 3 clients × 40
// transactions of tpcb-like@1 + simple-update@1 here and in pgbench -c 3
// -j 3 with the same --random-seed: the clients interleave differently,
// but each client draws what pgbench's does (Seeds), so the history's
// rows and every balance are equal as sets.
func TestSameTransactionsAsPgbenchThreeClients(t *testing.T) {
	forEachSession(t, testSameTransactionsAsPgbenchThreeClients)
}

func testSameTransactionsAsPgbenchThreeClients(t *testing.T, open opener) {
	pgbench := pgtest.Pgbench(t)
	ours, theirs := tpcbDatabase(t), tpcbDatabase(t)
	const seed, clients, txns = 777, 3, 40
	out, err := exec.Command(pgbench, "-n", "-M", "prepared", "-c", fmt.Sprint(clients), "-j", fmt.Sprint(clients), "-t", fmt.Sprint(txns),
		fmt.Sprintf("--random-seed=%d", seed), "-b", "tpcb-like@1", "-b", "simple-update@1", theirs).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	scripts := []*script.Script{builtin(t, "tpcb-like", 1), builtin(t, "simple-update", 1)}
	seeds := Seeds(seed, clients)
	var cs []*Client
	for i := range clients {
		cs = append(cs, newClient(t, open, ours, Config{Scripts: scripts, ID: i, Scale: 1, Seed: seeds[i]}))
	}
	runClients(t, cs, txns, nil)
	for _, q := range []string{
		`select md5(string_agg(format('%s %s %s %s', tid, bid, aid, delta), ',' order by tid, bid, aid, delta)) from pgbench_history`,
		balancesQuery,
	} {
		if a, b := queryString(t, ours, q), queryString(t, theirs, q); a != b {
			t.Errorf("%s:\n ours    %s\n pgbench %s", q, a, b)
		}
	}
}

// runClients runs txns transactions in each client concurrently, each
// recorded into its stats (when given); the first error fails the test.
func runClients(t *testing.T, cs []*Client, txns int, stats []*Stats) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(cs))
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range txns {
				o := c.Run(context.Background())
				if stats != nil {
					stats[i].Record(o)
				}
				if o.Err != nil {
					errs <- o.Err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestNextIsWhatRunsNext: Next says the script the next Run runs, however
// often it is asked, and asking changes nothing a client draws: a client
// asked before every transaction runs the scripts one never asked runs.
func TestNextIsWhatRunsNext(t *testing.T) {
	dsn := tpcbDatabase(t)
	open := sessions[1].open
	scripts := []*script.Script{builtin(t, "select-only", 3), builtin(t, "simple-update", 1)}
	cfg := Config{Scripts: scripts, Scale: 1, Seed: Seeds(99, 1)[0]}
	plain, asked := newClient(t, open, dsn, cfg), newClient(t, open, dsn, cfg)
	ran := map[int]int{}
	for i := range 60 {
		want := -1
		for range i % 3 { // 0, 1 or 2 times
			if n := asked.Next(); want >= 0 && n != want {
				t.Fatalf("transaction %d: Next said %d, then %d", i, want, n)
			} else {
				want = n
			}
		}
		a, b := plain.Run(context.Background()), asked.Run(context.Background())
		if a.Err != nil || b.Err != nil {
			t.Fatal(a.Err, b.Err)
		}
		if b.Script != a.Script || (want >= 0 && b.Script != want) {
			t.Fatalf("transaction %d: ran script %d (Next said %d), the client never asked ran %d", i, b.Script, want, a.Script)
		}
		ran[a.Script]++
	}
	if len(ran) != 2 {
		t.Errorf("scripts run %v: want both, or the test compares nothing", ran)
	}
}
