// Package enginetest is the engine-conformance suite: every engine runs the
// same tests against a real database (build, cardinalities, both modes
// equal, the New-Order rollback, a run followed by check, retries).
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/tpcc"
)

// Harness tells the suite how to reach an engine.
type Harness struct {
	// Open returns a fresh, empty database (dropped by the harness at t.Cleanup).
	Open func(t testing.TB) engine.DB
	// RetryableError provokes a real retryable error (deadlock or
	// serialization failure) on db and returns it; nil skips that test.
	RetryableError func(t testing.TB, db engine.DB) error
	// Exec runs a data-changing statement on db (the broken-database
	// checks use it); nil skips that test.
	Exec func(t testing.TB, db engine.DB, sql string)
}

const seed = 20261122

// Build loads 1 warehouse into db and fails the test on error.
func Build(t testing.TB, db engine.DB) loader.Result {
	t.Helper()
	res, err := loader.Build(context.Background(), db, loader.Config{Warehouses: 1, Loaders: 2, Seed: seed, Version: "test"})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return res
}

func queryInt(t testing.TB, db engine.DB, sql string) int64 {
	t.Helper()
	n, err := db.QueryInt(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Run runs the whole suite.
func Run(t *testing.T, h Harness) {
	db := h.Open(t)
	Build(t, db)
	ctx := context.Background()

	t.Run("cardinalities", func(t *testing.T) { testCardinalities(t, db) })
	t.Run("checks-after-build", func(t *testing.T) { testChecksAfterBuild(t, db) })
	if h.Exec != nil {
		t.Run("broken-database-fails-checks", func(t *testing.T) { testBrokenChecks(t, db, h.Exec) })
	}

	meta, err := db.ReadMeta(ctx)
	if err != nil || !meta.Complete || meta.Warehouses != 1 {
		t.Fatalf("meta %+v, %v", meta, err)
	}
	consts := meta.Constants.WithRunConstants(tpcc.NewRand(1, 1))

	if modes := db.Caps().Modes(); len(modes) == 2 {
		// Both databases are fresh builds of the same seed.
		t.Run("modes-equal", func(t *testing.T) {
			other := h.Open(t)
			Build(t, other)
			testModesEqual(t, consts, map[engine.Mode]engine.DB{modes[0]: db, modes[1]: other})
		})
	}
	for _, mode := range db.Caps().Modes() {
		t.Run("rollback-"+string(mode), func(t *testing.T) {
			testRollback(t, db, mode)
		})
	}
	t.Run("run-then-check", func(t *testing.T) { testRunThenCheck(t, db, consts) })
	if sc, ok := db.(slotCounter); ok {
		t.Run("connection-slots", func(t *testing.T) { testSlots(t, db, sc) })
	}
	if h.RetryableError != nil {
		t.Run("retryable-error-is-retried", func(t *testing.T) { testRetried(t, db, h.RetryableError, consts) })
	}
}

// testCardinalities sees every table of a 1-warehouse build hold the rows
// the spec's initial population gives it.
func testCardinalities(t *testing.T, db engine.DB) {
	for _, tab := range tpcc.Tables {
		got := queryInt(t, db, "SELECT count(*) FROM "+string(tab))
		want := tpcc.InitialRows(tab, 1)
		if tab == tpcc.OrderLine {
			want = queryInt(t, db, "SELECT sum(o_ol_cnt) FROM orders")
		}
		if got != want {
			t.Errorf("%s: %d rows, want %d", tab, got, want)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM customer WHERE c_credit = 'BC'"); n < 2700 || n > 3300 {
		t.Errorf("BC customers %d, want about 3000", n)
	}
}

// testChecksAfterBuild sees every consistency condition, the build-only
// ones included, pass on a fresh build.
func testChecksAfterBuild(t *testing.T, db engine.DB) {
	results, err := tpcc.RunChecks(context.Background(), db, db.CheckSQL, true, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.Passed() || r.Skipped {
			t.Errorf("%s %s: %d violations (skipped %v)", r.Check.ID, r.Check.Name, r.Violations, r.Skipped)
		}
	}
}

// testRunThenCheck runs a short step in every mode and one with deferred
// Delivery, then sees the consistency conditions still pass.
func testRunThenCheck(t *testing.T, db engine.DB, consts tpcc.Constants) {
	ctx := context.Background()
	for _, mode := range db.Caps().Modes() {
		// Two users on one warehouse at snapshot isolation collide on
		// the warehouse row with every pair of concurrent Payments: on a
		// loaded machine one user's Payment failed the default 10
		// retries in a row (CI, once). Serialization failures are the
		// isolation working; any error left after 100 retries is not.
		res, err := driver.RunStep(ctx, db, driver.StepConfig{Users: 2, Warehouses: 1, Constants: consts, Seed: 7, MaxRetries: 100, Spec: driver.Spec{Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Mode: mode}})
		if err != nil {
			t.Fatal(err)
		}
		for ty, s := range res.Txn {
			if s.Errors > 0 {
				t.Errorf("%s %s: %d errors, first: %s", mode, tpcc.TxnType(ty), s.Errors, s.FirstError)
			}
		}
		if res.Completed() == 0 || res.TPM() <= 0 {
			t.Errorf("%s: nothing completed", mode)
		}
	}
	testDeferredDelivery(t, db, consts)
	Consistent(t, db, false, "after run")
}

// Consistent runs the consistency conditions on db (quick: those of
// check --quick) and reports each that fails, its violations counted,
// prefixed by when.
func Consistent(t testing.TB, db engine.DB, quick bool, when string) {
	t.Helper()
	results, err := tpcc.RunChecks(context.Background(), db, db.CheckSQL, quick, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.Passed() {
			t.Errorf("%s: %s %s: %d violations", when, r.Check.ID, r.Check.Name, r.Violations)
		}
	}
}

// testDeferredDelivery (2.7.2): the delivery worker runs every Delivery
// queued in the interval, on its own connection.
func testDeferredDelivery(t *testing.T, db engine.DB, consts tpcc.Constants) {
	res, err := driver.RunStep(context.Background(), db, driver.StepConfig{Users: 2, Warehouses: 1, Constants: consts, Seed: 8, MaxRetries: 100, Spec: driver.Spec{Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Mode: db.Caps().DefaultMode(), Delivery: driver.DeliveryDeferred}})
	if err != nil {
		t.Fatal(err)
	}
	if d, queued := res.Deferred, res.Txn[tpcc.DeliveryTxn].Count; d == nil || queued == 0 || d.Count != queued || d.Errors != 0 {
		t.Errorf("deferred Delivery: %d queued in the interval, executions %+v: want every one delivered", queued, d)
	}
}

// testRetried provokes a real retryable error, sees the engine classify it
// as one, and sees the driver retry a transaction that failed with it once.
func testRetried(t *testing.T, db engine.DB, provoke func(testing.TB, engine.DB) error, consts tpcc.Constants) {
	rerr := provoke(t, db)
	if rerr == nil {
		t.Fatal("no error provoked")
	}
	if c := db.Classify(rerr); c != engine.ErrRetry {
		t.Fatalf("%v classified %v, want retry", rerr, c)
	}
	ft := &failOnce{DB: db, err: rerr}
	res, err := driver.RunStep(context.Background(), ft, driver.StepConfig{Users: 1,
		Warehouses: 1, Constants: consts, Seed: 9, Spec: driver.Spec{Duration: time.Second, Mode: db.Caps().DefaultMode()}})
	if err != nil {
		t.Fatal(err)
	}
	var retries, errs int64
	for _, s := range res.Txn {
		retries += s.Retries
		errs += s.Errors
	}
	if retries != 1 || errs != 0 {
		t.Fatalf("retries %d errors %d, want 1 and 0", retries, errs)
	}
}

// breakages each break one of the consistency conditions the suite
// checks deliberately, then repair it; the conditions they must fail.
var breakages = []struct {
	name         string
	break_, mend string
	fails        []string
}{
	{"an order claims one line more than it has",
		"UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1",
		"UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1",
		[]string{"3.3.2.4", "3.3.2.6"}},
	{"a delivered order's line has no delivery date",
		"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1",
		"UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1",
		[]string{"3.3.2.7"}},
	{"a customer's balance moved without payment or delivery (year-to-date kept)",
		"UPDATE customer SET c_balance = c_balance + 1, c_ytd_payment = c_ytd_payment - 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1",
		"UPDATE customer SET c_balance = c_balance - 1, c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1",
		[]string{"3.3.2.10"}},
	{"a customer's year-to-date payment moved alone",
		"UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 2",
		"UPDATE customer SET c_ytd_payment = c_ytd_payment - 1 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 2",
		[]string{"3.3.2.12"}},
}

// testBrokenChecks breaks the database in one way at a time and sees
// exactly the conditions that must fail fail, then all pass once mended.
func testBrokenChecks(t *testing.T, db engine.DB, exec func(testing.TB, engine.DB, string)) {
	ctx := context.Background()
	failing := func() []string {
		res, err := tpcc.RunChecks(ctx, db, db.CheckSQL, true, false)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range res {
			if !r.Passed() {
				ids = append(ids, r.Check.ID)
			}
		}
		return ids
	}
	for _, b := range breakages {
		exec(t, db, b.break_)
		got := failing()
		exec(t, db, b.mend)
		if strings.Join(got, ",") != strings.Join(b.fails, ",") {
			t.Errorf("%s: conditions failing %v, want %v", b.name, got, b.fails)
		}
	}
	if got := failing(); len(got) > 0 {
		t.Fatalf("after mending, conditions still failing: %v", got)
	}
}

// failOnce makes the first transaction of its executors fail with err
// (a real engine error), to see the driver retry it.
type failOnce struct {
	engine.DB
	err   error
	fired atomic.Bool
}

func (f *failOnce) NewExecutor(ctx context.Context, mode engine.Mode) (tpcc.Executor, error) {
	e, err := f.DB.NewExecutor(ctx, mode)
	if err != nil {
		return nil, err
	}
	return &failingExec{Executor: e, f: f}, nil
}

type failingExec struct {
	tpcc.Executor
	f *failOnce
}

func (e *failingExec) fail() error {
	if e.f.fired.CompareAndSwap(false, true) {
		return e.f.err
	}
	return nil
}

func (e *failingExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	if err := e.fail(); err != nil {
		return err
	}
	return e.Executor.NewOrder(ctx, in, out)
}

func (e *failingExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	if err := e.fail(); err != nil {
		return err
	}
	return e.Executor.Payment(ctx, in, out)
}

func testRollback(t *testing.T, db engine.DB, mode engine.Mode) {
	ctx := context.Background()
	ex, err := db.NewExecutor(ctx, mode)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close(ctx)
	next := "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3"
	before := queryInt(t, db, next)
	orders := queryInt(t, db, "SELECT count(*) FROM orders")
	lines := queryInt(t, db, "SELECT count(*) FROM order_line")
	stock := queryInt(t, db, "SELECT sum(s_order_cnt) FROM stock WHERE s_w_id = 1")
	in := tpcc.NewOrderInput{WID: 1, DID: 3, CID: 42, AllLocal: true, Lines: []tpcc.OrderLineInput{
		{Number: 1, ItemID: 10, SupplyWID: 1, Quantity: 3}, {Number: 2, ItemID: 20, SupplyWID: 1, Quantity: 4},
		{Number: 3, ItemID: tpcc.InvalidItemID, SupplyWID: 1, Quantity: 1}}}
	var out tpcc.NewOrderResult
	if err := ex.NewOrder(ctx, &in, &out); err != nil {
		t.Fatalf("rolled-back new order returned an error: %v", err)
	}
	if !out.RolledBack {
		t.Fatal("new order with an unused item was not rolled back")
	}
	if got := queryInt(t, db, next); got != before {
		t.Errorf("d_next_o_id moved %d -> %d", before, got)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM orders"); got != orders {
		t.Errorf("orders %d -> %d: the rolled-back order was left behind", orders, got)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM order_line"); got != lines {
		t.Errorf("order lines %d -> %d", lines, got)
	}
	if got := queryInt(t, db, "SELECT sum(s_order_cnt) FROM stock WHERE s_w_id = 1"); got != stock {
		t.Errorf("stock updates not rolled back: s_order_cnt %d -> %d", stock, got)
	}
	// The connection is usable afterwards and a valid order commits.
	in.Lines = in.Lines[:2]
	if err := ex.NewOrder(ctx, &in, &out); err != nil || out.RolledBack || int64(out.OID) != before {
		t.Fatalf("valid new order after rollback: %+v, %v (want o_id %d)", out, err, before)
	}
}

// describe prints a transaction's outputs (the whole output screen but
// dates) so two modes can be compared.
func describe(term *tpcc.Terminal, ty tpcc.TxnType) string {
	var b strings.Builder
	switch ty {
	case tpcc.NewOrderTxn:
		o := term.NewOrderOut
		fmt.Fprintf(&b, "NO o=%d rb=%v total=%.2f c=%s/%s disc=%.4f tax=%.4f/%.4f", o.OID, o.RolledBack, o.Total,
			o.CLast, o.Credit, o.Discount, o.WTax, o.DTax)
		for _, l := range o.Lines {
			fmt.Fprintf(&b, " [%s q=%d %c %.2f %.2f]", l.ItemName, l.StockQty, l.BrandGeneric, l.Price, l.Amount)
		}
	case tpcc.PaymentTxn:
		o := term.PaymentOut
		fmt.Fprintf(&b, "P c=%d bal=%.2f w=%v d=%v c=%v %s %s %s %s %s lim=%.2f disc=%.4f data=%q", o.CID, o.Balance,
			o.Warehouse, o.District, o.Customer, o.First, o.Middle, o.Last, o.Phone, o.Credit, o.CreditLim, o.Discount, o.Data)
	case tpcc.OrderStatusTxn:
		o := term.OrderStatusOut
		fmt.Fprintf(&b, "OS c=%d bal=%.2f %s %s %s o=%d carrier=%d", o.CID, o.Balance, o.First, o.Middle, o.Last, o.OID, o.Carrier)
		for _, l := range o.Lines {
			fmt.Fprintf(&b, " [%d %d %d %.2f %v]", l.ItemID, l.SupplyWID, l.Quantity, l.Amount, l.Delivered)
		}
	case tpcc.DeliveryTxn:
		o := term.DeliveryOut
		fmt.Fprintf(&b, "D %d/%d", o.Delivered, o.Skipped)
	default:
		fmt.Fprintf(&b, "SL %d", term.StockLevelOut.LowStock)
	}
	return b.String()
}

// checkOutputs fails when a transaction's output screen misses data the
// spec requires (names, addresses, lines).
func checkOutputs(t *testing.T, term *tpcc.Terminal, ty tpcc.TxnType) {
	t.Helper()
	switch ty {
	case tpcc.NewOrderTxn:
		o := term.NewOrderOut
		if o.RolledBack {
			return
		}
		if o.CLast == "" || o.Credit == "" || len(o.Lines) != len(term.NewOrderIn.Lines) {
			t.Fatalf("new order output incomplete: %+v", o)
		}
		for _, l := range o.Lines {
			if l.ItemName == "" || l.StockQty < 1 || (l.BrandGeneric != 'B' && l.BrandGeneric != 'G') || l.Price <= 0 {
				t.Fatalf("new order line output incomplete: %+v", l)
			}
		}
	case tpcc.PaymentTxn:
		o := term.PaymentOut
		if o.Warehouse.Street1 == "" || o.Warehouse.Zip == "" || o.District.City == "" || o.Customer.State == "" ||
			o.First == "" || o.Middle != "OE" || o.Last == "" || o.Phone == "" || o.CreditLim <= 0 ||
			(o.Credit == "BC") != (o.Data != "") {
			t.Fatalf("payment output incomplete: %+v", o)
		}
	case tpcc.OrderStatusTxn:
		o := term.OrderStatusOut
		if o.First == "" || o.Last == "" || len(o.Lines) < tpcc.MinOrderLines || o.Lines[0].ItemID == 0 || o.Lines[0].Quantity == 0 {
			t.Fatalf("order status output incomplete: %+v", o)
		}
	}
}

// stateQueries summarise the database state without timestamps.
var stateQueries = []string{
	"SELECT sum(d_next_o_id) FROM district",
	"SELECT CAST(round(sum(w_ytd) * 100) AS bigint) FROM warehouse",
	"SELECT CAST(round(sum(d_ytd) * 100) AS bigint) FROM district",
	"SELECT CAST(round(sum(c_balance) * 100) AS bigint) FROM customer",
	"SELECT CAST(round(sum(c_ytd_payment) * 100) AS bigint) FROM customer",
	"SELECT sum(c_payment_cnt) + 1000 * sum(c_delivery_cnt) FROM customer",
	"SELECT sum(length(c_data)) FROM customer",
	"SELECT sum(s_quantity) + 7 * sum(s_ytd) + 13 * sum(s_order_cnt) + 17 * sum(s_remote_cnt) FROM stock",
	"SELECT count(*) FROM orders",
	"SELECT sum(o_c_id) + sum(COALESCE(o_carrier_id, 0)) FROM orders",
	"SELECT count(*) FROM new_order",
	"SELECT count(*) FROM order_line",
	"SELECT sum(ol_i_id) + sum(ol_quantity) + count(ol_delivery_d) FROM order_line",
	"SELECT CAST(round(sum(ol_amount) * 100) AS bigint) FROM order_line",
	"SELECT count(*) FROM history",
	"SELECT CAST(round(sum(h_amount) * 100) AS bigint) + sum(length(h_data)) FROM history",
}

func testModesEqual(t *testing.T, consts tpcc.Constants, dbs map[engine.Mode]engine.DB) {
	ctx := context.Background()
	outputs := map[engine.Mode][]string{}
	states := map[engine.Mode][]int64{}
	for mode, db := range dbs {
		ex, err := db.NewExecutor(ctx, mode)
		if err != nil {
			t.Fatal(err)
		}
		term := tpcc.NewTerminal(tpcc.NewRand(77, 1), consts, 1, 1, 4)
		var log []string
		for i := 0; i < 400; i++ {
			ty := term.Next()
			if err := term.Exec(ctx, ex, ty); err != nil {
				t.Fatalf("%s: transaction %d: %v", mode, i, err)
			}
			checkOutputs(t, term, ty)
			log = append(log, describe(term, ty))
		}
		ex.Close(ctx)
		outputs[mode] = log
		for _, q := range stateQueries {
			states[mode] = append(states[mode], queryInt(t, db, q))
		}
	}
	var modes []engine.Mode
	for m := range dbs {
		modes = append(modes, m)
	}
	a, b := modes[0], modes[1]
	for i := range outputs[a] {
		if outputs[a][i] != outputs[b][i] {
			t.Fatalf("transaction %d differs:\n  %s: %s\n  %s: %s", i, a, outputs[a][i], b, outputs[b][i])
		}
	}
	for i, q := range stateQueries {
		if states[a][i] != states[b][i] {
			t.Errorf("%s\n  %s: %d\n  %s: %d", q, a, states[a][i], b, states[b][i])
		}
	}
	if t.Failed() {
		return
	}
	rb, brand := 0, 0
	for _, s := range outputs[a] {
		if strings.Contains(s, "rb=true") {
			rb++
		}
		brand += strings.Count(s, " B ")
	}
	if brand == 0 {
		t.Error("no order line was brand 'B': brand-generic is not computed")
	}
	t.Logf("%d transactions gave the same results and output screens in both modes (%d rolled back, %d brand lines)",
		len(outputs[a]), rb, brand)
}

var _ = errors.New

// slotCounter is what an engine that limits its connections tells.
type slotCounter interface {
	ConnectionSlots(ctx context.Context) (engine.Slots, error)
}

// testSlots opens three executors and sees the slots in use rise by three
// and the free ones fall by as many, with the limit and the setting that
// raises it named.
func testSlots(t *testing.T, db engine.DB, sc slotCounter) {
	ctx := context.Background()
	before, err := sc.ConnectionSlots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	for range n {
		e, err := db.NewExecutor(ctx, db.Caps().DefaultMode())
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close(ctx)
	}
	after, err := sc.ConnectionSlots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("before %+v, after %+v", before, after)
	if after.InUse-before.InUse != n || before.Free()-after.Free() != n {
		t.Errorf("%d executors opened: in use %d -> %d, free %d -> %d; want both to move by %d", n, before.InUse, after.InUse, before.Free(), after.Free(), n)
	}
	if before.Max < before.InUse || before.Setting == "" || before.Reserved < 0 {
		t.Errorf("slots %+v: want a limit over the connections in use and its setting", before)
	}
}
