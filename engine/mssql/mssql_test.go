package mssql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gomssql "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

func TestCapsAndInterface(t *testing.T) {
	var db engine.DB = &DB{}
	if db.Engine() != "mssql" {
		t.Errorf("Engine() = %q", db.Engine())
	}
	if got := db.Caps().Modes(); !slices.Equal(got, []engine.Mode{engine.Procedures, engine.Statements}) {
		t.Errorf("modes %v, want procedures then statements", got)
	}
	if !Caps.Server {
		t.Error("SQL Server is a server")
	}
}

// TestSQLIsDeterministic: the same text every time (nothing depends on
// map order or on time).
func TestSQLIsDeterministic(t *testing.T) {
	a, b := allSQL(), allSQL()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("generated SQL differs between two calls")
	}
	if !reflect.DeepEqual(statementTexts(true), statementTexts(true)) {
		t.Fatal("statement texts differ between two calls")
	}
}

// TestSQL2008Compatible: nothing newer than SQL Server 2008 (R2) is used, so
// 2008 R2 and 2017 run the same text.
func TestSQL2008Compatible(t *testing.T) {
	all := allSQL()
	for k, v := range statementTexts(true) {
		all[k] = v
	}
	banned := []struct {
		re  *regexp.Regexp
		why string
	}{
		{regexp.MustCompile(`(?i)\bDROP\s+\w+\s+IF\s+EXISTS`), "DROP ... IF EXISTS is SQL Server 2016"},
		{regexp.MustCompile(`(?i)\bCREATE\s+OR\s+ALTER\b`), "CREATE OR ALTER is SQL Server 2016 SP1"},
		{regexp.MustCompile(`(?i)\bSTRING_SPLIT\b`), "STRING_SPLIT is SQL Server 2016, compatibility level 130"},
		{regexp.MustCompile(`(?i)\bOPENJSON\b`), "OPENJSON is SQL Server 2016, compatibility level 130"},
		{regexp.MustCompile(`(?i)\bTHROW\b`), "THROW is SQL Server 2012"},
		{regexp.MustCompile(`(?i)\bOFFSET\b.*\bFETCH\b`), "OFFSET/FETCH is SQL Server 2012"},
		{regexp.MustCompile(`(?i)\b(IIF|CONCAT|TRY_CONVERT|TRY_CAST|FORMAT|STRING_AGG)\s*\(`), "a function of SQL Server 2012 or later"},
		{regexp.MustCompile(`(?i)\bLIMIT\s+\d`), "LIMIT is not T-SQL"},
		{regexp.MustCompile(`(?i)\bRETURNING\b`), "RETURNING is not T-SQL (use OUTPUT)"},
		{regexp.MustCompile(`\|\|`), "|| is not T-SQL string concatenation"},
		{regexp.MustCompile(`(?im)^\s*GO\s*$`), "GO is a client batch separator, not T-SQL"},
		{regexp.MustCompile(`::`), "PostgreSQL cast"},
		{regexp.MustCompile(`(?i)\bSYSDATETIME\b|\bdatetime2\b`), "kept to datetime/GETDATE for one schema on every version"},
	}
	for name, s := range all {
		for _, b := range banned {
			if b.re.MatchString(s) {
				t.Errorf("%s: %s:\n%s", name, b.why, s)
			}
		}
	}
}

// ddlColumns parses a CREATE TABLE statement into column name -> type.
var ddlColumnRE = regexp.MustCompile(`(?:\(|,)\s*(\w+) (int|datetime|nvarchar\(max\)|numeric\(\d+,\d+\)|varchar\(\d+\)|char\(\d+\))`)

func ddlFor(t *testing.T, table string) string {
	t.Helper()
	for _, s := range tableDDL {
		if strings.HasPrefix(s, "CREATE TABLE dbo."+table+" (") {
			return s
		}
	}
	t.Fatalf("no CREATE TABLE for %s", table)
	return ""
}

func ddlColumns(ddl string) (names []string, types map[string]string) {
	types = map[string]string{}
	for _, m := range ddlColumnRE.FindAllStringSubmatch(ddl, -1) {
		names = append(names, m[1])
		types[m[1]] = m[2]
	}
	return names, types
}

func TestTablesMatchTheWorkload(t *testing.T) {
	if len(tableDDL) != len(tpcc.Tables)+1 {
		t.Fatalf("%d CREATE TABLEs, want the %d tables and rightsize_meta", len(tableDDL), len(tpcc.Tables))
	}
	pk := map[tpcc.Table]string{
		tpcc.Warehouse: "(w_id)", tpcc.District: "(d_w_id, d_id)", tpcc.Customer: "(c_w_id, c_d_id, c_id)",
		tpcc.Orders: "(o_w_id, o_d_id, o_id)", tpcc.NewOrders: "(no_w_id, no_d_id, no_o_id)",
		tpcc.OrderLine: "(ol_w_id, ol_d_id, ol_o_id, ol_number)", tpcc.Stock: "(s_w_id, s_i_id)", tpcc.Item: "(i_id)",
	}
	for _, tab := range tpcc.Tables {
		ddl := ddlFor(t, string(tab))
		names, _ := ddlColumns(ddl)
		if !slices.Equal(names, tpcc.Columns[tab]) {
			t.Errorf("%s columns\n got %v\nwant %v", tab, names, tpcc.Columns[tab])
		}
		if key, ok := pk[tab]; ok {
			want := "CONSTRAINT pk_" + string(tab) + " PRIMARY KEY CLUSTERED " + key
			if !strings.Contains(ddl, want) {
				t.Errorf("%s: no %q in\n%s", tab, want, ddl)
			}
		} else if strings.Contains(ddl, "PRIMARY KEY") {
			t.Errorf("%s should stay a heap without primary key:\n%s", tab, ddl)
		}
	}
	if meta := ddlFor(t, metaTable); !strings.Contains(meta, "meta nvarchar(max) NOT NULL") || !strings.Contains(meta, "PRIMARY KEY CLUSTERED (id)") {
		t.Errorf("rightsize_meta: %s", meta)
	}
}

func TestSchemaStatementsOrder(t *testing.T) {
	s := schemaStatements()
	index := func(sub string) int {
		for i, x := range s {
			if strings.Contains(x, sub) {
				return i
			}
		}
		t.Fatalf("no statement containing %q", sub)
		return -1
	}
	// A table type cannot be dropped while a procedure uses it, nor a
	// table re-created before it is dropped.
	if !(index("DROP PROCEDURE dbo.rs_new_order") < index("DROP TYPE dbo.rs_order_line_list") &&
		index("DROP TYPE dbo.rs_order_line_list") < index("DROP TABLE dbo.order_line") &&
		index("DROP TABLE dbo.order_line") < index("CREATE TABLE dbo.order_line")) {
		t.Errorf("wrong order:\n%s", strings.Join(s, "\n"))
	}
	for _, x := range s {
		if strings.HasPrefix(x, "IF ") && !regexp.MustCompile(`^IF (OBJECT_ID\(N'dbo\.\w+', N'[UP]'\)|TYPE_ID\(N'dbo\.\w+'\)) IS NOT NULL DROP (TABLE|PROCEDURE|TYPE) dbo\.\w+$`).MatchString(x) {
			t.Errorf("unexpected drop statement %q", x)
		}
	}
	if got := dropTable("stock"); got != "IF OBJECT_ID(N'dbo.stock', N'U') IS NOT NULL DROP TABLE dbo.stock" {
		t.Errorf("dropTable: %s", got)
	}
}

func TestIndexSteps(t *testing.T) {
	steps := (&DB{}).IndexSteps()
	if len(steps) != 2 {
		t.Fatalf("%d index steps, want the 2 secondary indexes", len(steps))
	}
	want := map[string]string{
		"customer (w, d, last, first)": "CREATE NONCLUSTERED INDEX customer_last ON dbo.customer (c_w_id, c_d_id, c_last, c_first)",
		"orders (w, d, c, id)":         "CREATE UNIQUE NONCLUSTERED INDEX orders_customer ON dbo.orders (o_w_id, o_d_id, o_c_id, o_id)",
	}
	for _, ix := range secondaryIndexes {
		if want[ix.name] != ix.sql {
			t.Errorf("%s: %s", ix.name, ix.sql)
		}
	}
	for i, s := range analyzeStatements() {
		if s != "UPDATE STATISTICS dbo."+string(tpcc.Tables[i]) {
			t.Errorf("analyze: %s", s)
		}
	}
}

func procByName(t *testing.T, name string) string {
	t.Helper()
	for _, p := range procedures {
		if p.name == name {
			return p.sql()
		}
	}
	t.Fatalf("no procedure %s", name)
	return ""
}

// inOrder fails unless each fragment occurs in s after the previous one.
func inOrder(t *testing.T, what, s string, fragments ...string) {
	t.Helper()
	at := 0
	for _, f := range fragments {
		i := strings.Index(s[at:], f)
		if i < 0 {
			t.Errorf("%s: %q missing (or out of order) after offset %d in\n%s", what, f, at, s)
			return
		}
		at += i + len(f)
	}
}

func TestProceduresShape(t *testing.T) {
	want := []string{"rs_new_order", "rs_payment", "rs_order_status", "rs_delivery", "rs_stock_level"}
	var got []string
	for _, p := range procedures {
		got = append(got, p.name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("procedures %v, want %v", got, want)
	}
	for _, p := range procedures {
		s := p.sql()
		inOrder(t, p.name, s,
			"CREATE PROCEDURE dbo."+p.name+"\n", "\nAS\nBEGIN\n",
			"SET NOCOUNT ON;", "SET XACT_ABORT ON;",
			"BEGIN TRY", "BEGIN TRANSACTION;", "COMMIT TRANSACTION;", "END TRY",
			"BEGIN CATCH", "IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;",
			"SELECT @err_no = ERROR_NUMBER(), @err_msg = ERROR_MESSAGE();",
			"RAISERROR(N'rs_error %d in "+p.name+": %s', 16, 1, @err_no, @err_msg);", "RETURN 1;", "END CATCH",
			"SELECT ", "\nEND")
		if strings.Count(s, "BEGIN TRANSACTION") != 1 || strings.Count(s, "COMMIT TRANSACTION") != 1 {
			t.Errorf("%s: one transaction expected", p.name)
		}
		// Blocks balance: BEGIN [TRY|CATCH] ... END [TRY|CATCH] and CASE ... END.
		count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(s, -1)) }
		if begins, ends := count(`\bBEGIN\b`)-count(`\bBEGIN TRANSACTION\b`)+count(`\bCASE\b`), count(`\bEND\b`); begins != ends {
			t.Errorf("%s: %d BEGIN/CASE, %d END", p.name, begins, ends)
		}
		// The message format must be what Classify parses back.
		msg := fmt.Sprintf("%s%d in %s: %s", reraisePrefix, 1205, p.name, "Transaction (Process ID 57) was deadlocked")
		if n, ok := reraisedNumber(msg); !ok || n != 1205 {
			t.Errorf("%s: re-raised message %q parses to %d, %v", p.name, msg, n, ok)
		}
	}
}

func TestNewOrderProcedure(t *testing.T) {
	s := procByName(t, "rs_new_order")
	for _, f := range []string{
		"@lines dbo.rs_order_line_list READONLY",
		// D_NEXT_O_ID: the variable takes the value before the update.
		"UPDATE dbo.district SET @d_tax = d_tax, @o_id = d_next_o_id, d_next_o_id = d_next_o_id + 1",
		"INSERT INTO dbo.orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)",
		"VALUES (@o_id, @d_id, @w_id, @c_id, GETDATE(), NULL, @ol_cnt, @all_local)",
		"INSERT INTO dbo.new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @d_id, @w_id)",
		"s_quantity = CASE WHEN s_quantity >= @ol_quantity + 10 THEN s_quantity - @ol_quantity ELSE s_quantity - @ol_quantity + 91 END",
		"s_ytd = s_ytd + @ol_quantity", "s_order_cnt = s_order_cnt + 1",
		"s_remote_cnt = s_remote_cnt + CASE WHEN @ol_supply_w_id <> @w_id THEN 1 ELSE 0 END",
		"WHERE s_i_id = @ol_i_id AND s_w_id = @ol_supply_w_id",
		"SET @ol_amount = @ol_quantity * @i_price",
		"VALUES (@o_id, @d_id, @w_id, @ol_number, @ol_i_id, @ol_supply_w_id, NULL, @ol_quantity, @ol_amount, @s_dist)",
		"FROM @lines WHERE seq = @i",
		"@s_quantity = s_quantity = CASE",
		"CASE WHEN CHARINDEX('ORIGINAL', @i_data) > 0 AND CHARINDEX('ORIGINAL', @s_data) > 0 THEN 'B' ELSE 'G' END",
		"+ @screen AS screen;",
		"SET @total = ROUND(@sum * @f_disc * @f_tax, 2)",
		"@sum numeric(12,2), @f_disc numeric(5,4), @f_tax numeric(5,4)",
	} {
		if !strings.Contains(s, f) {
			t.Errorf("rs_new_order lacks %q", f)
		}
	}
	// The invalid item: found missing in the item table, then a real
	// rollback, the rolled_back flag, and an early return before COMMIT.
	inOrder(t, "invalid item", s,
		"FROM dbo.item WHERE i_id = @ol_i_id;", "IF @@ROWCOUNT = 0", "ROLLBACK TRANSACTION;",
		"CAST(1 AS int) AS rolled_back, CAST('' AS varchar(1)) AS screen;", "RETURN 0;", "END", "UPDATE dbo.stock", "COMMIT TRANSACTION;",
		"CAST(0 AS int) AS rolled_back,")
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		if !strings.Contains(s, fmt.Sprintf("s_dist_%02d", d)) {
			t.Errorf("rs_new_order never reads s_dist_%02d", d)
		}
	}
	if dc := distCase(); !strings.HasPrefix(dc, "CASE @d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02") || !strings.HasSuffix(dc, "WHEN 9 THEN s_dist_09 ELSE s_dist_10 END") {
		t.Errorf("distCase: %s", dc)
	}
}

func TestPaymentProcedure(t *testing.T) {
	s := procByName(t, "rs_payment")
	for _, f := range []string{
		"@h_amount numeric(6,2)", "@c_last varchar(16)", "@by_name bit",
		"UPDATE dbo.warehouse SET w_ytd = w_ytd + @h_amount, @w_name = w_name, @w_street_1 = w_street_1",
		"UPDATE dbo.district SET d_ytd = d_ytd + @h_amount, @d_name = d_name, @d_street_1 = d_street_1",
		"@c_data = CASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) ELSE '' END",
		"CAST(@c_credit_lim AS float), CAST(@c_discount AS float), @c_data;",
		"ROW_NUMBER() OVER (ORDER BY c_first, c_id)", "WHERE t.rn = (@n + 1) / 2",
		"c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_last = @c_last",
		"c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CAST(c_id AS varchar(10)) + ' ' + CAST(c_d_id AS varchar(10)) + ' ' + CAST(c_w_id AS varchar(10)) + ' ' + CAST(@d_id AS varchar(10)) + ' ' + CAST(@w_id AS varchar(10)) + ' ' + CAST(@h_amount AS varchar(10)) + ' | ' + c_data, 500) ELSE c_data END",
		"@c_balance = c_balance = c_balance - @h_amount",
		"c_ytd_payment = c_ytd_payment + @h_amount", "c_payment_cnt = c_payment_cnt + 1",
		"VALUES (@c_id, @c_d_id, @c_w_id, @d_id, @w_id, GETDATE(), @h_amount, @w_name + '    ' + @d_name)",
	} {
		if !strings.Contains(s, f) {
			t.Errorf("rs_payment lacks %q", f)
		}
	}
}

func TestOtherProcedures(t *testing.T) {
	os := procByName(t, "rs_order_status")
	for _, f := range []string{"WHERE t.rn = (@n + 1) / 2", "c_w_id = @w_id AND c_d_id = @d_id AND c_last = @c_last",
		"SELECT TOP (1) @o_id = o_id", "ORDER BY o_id DESC", "ISNULL(@o_id, 0) AS o_id"} {
		if !strings.Contains(os, f) {
			t.Errorf("rs_order_status lacks %q", f)
		}
	}
	d := procByName(t, "rs_delivery")
	inOrder(t, "rs_delivery", d, "BEGIN TRANSACTION;", "WHILE @d_id <= 10", "SET @no_o_id = NULL;",
		"SELECT TOP (1) @no_o_id = no_o_id FROM dbo.new_order WITH (UPDLOCK, ROWLOCK)", "ORDER BY no_o_id;",
		"IF @no_o_id IS NULL", "SET @skipped = @skipped + 1;", "DELETE FROM dbo.new_order",
		"UPDATE dbo.orders SET o_carrier_id = @o_carrier_id, @c_id = o_c_id", "UPDATE dbo.order_line SET ol_delivery_d = GETDATE()",
		"SELECT @ol_total = SUM(ol_amount)", "c_balance = c_balance + @ol_total, c_delivery_cnt = c_delivery_cnt + 1",
		"SET @delivered = @delivered + 1;", "SET @d_id = @d_id + 1;", "COMMIT TRANSACTION;",
		"SELECT @delivered AS delivered, @skipped AS skipped;")
	sl := procByName(t, "rs_stock_level")
	for _, f := range []string{"COUNT(DISTINCT s.s_i_id)", "s.s_i_id = ol.ol_i_id AND s.s_w_id = ol.ol_w_id",
		"ol.ol_o_id >= @next_o_id - 20 AND ol.ol_o_id < @next_o_id", "s.s_quantity < @threshold"} {
		if !strings.Contains(sl, f) {
			t.Errorf("rs_stock_level lacks %q", f)
		}
	}
}

func TestProcedureStatements(t *testing.T) {
	s := procedureStatements()
	n := len(procedures)
	if len(s) != 2*n+2 {
		t.Fatalf("%d statements", len(s))
	}
	for i, p := range procedures {
		if s[i] != dropProcedure(p.name) {
			t.Errorf("statement %d: %s", i, s[i])
		}
		if !strings.HasPrefix(s[n+2+i], "CREATE PROCEDURE dbo."+p.name) {
			t.Errorf("statement %d does not start its batch with CREATE PROCEDURE: %s", n+2+i, firstLine(s[n+2+i]))
		}
	}
	if s[n] != dropType(orderLineType) || s[n+1] != sqlCreateOrderLineType {
		t.Errorf("type statements: %q, %q", s[n], s[n+1])
	}
}

// paramNames lists the @names of a procedure's parameter list.
func paramNames(params string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`@(\w+) `).FindAllStringSubmatch(params, -1) {
		out = append(out, m[1])
	}
	return out
}

func argNames(args []any) []string {
	var out []string
	for _, a := range args {
		out = append(out, a.(sql.NamedArg).Name)
	}
	return out
}

// TestProcedureCallsMatchParameters: every call passes exactly the
// procedure's parameters, by name, with the right Go types.
func TestProcedureCallsMatchParameters(t *testing.T) {
	no := &tpcc.NewOrderInput{WID: 1, DID: 2, CID: 3, AllLocal: true, Lines: []tpcc.OrderLineInput{{Number: 2, ItemID: 7, SupplyWID: 1, Quantity: 5}, {Number: 1, ItemID: 9, SupplyWID: 2, Quantity: 1}}}
	calls := map[string][]any{
		"rs_new_order":    newOrderArgs(no, orderLines(nil, no)),
		"rs_payment":      paymentArgs(&tpcc.PaymentInput{WID: 1, DID: 2, CWID: 1, CDID: 3, CLast: "BARBARBAR", ByName: true, Amount: 1234.56}),
		"rs_order_status": orderStatusArgs(&tpcc.OrderStatusInput{WID: 1, DID: 2, CID: 5}),
		"rs_delivery":     deliveryArgs(&tpcc.DeliveryInput{WID: 1, CarrierID: 4}),
		"rs_stock_level":  stockLevelArgs(&tpcc.StockLevelInput{WID: 1, DID: 2, Threshold: 15}),
	}
	for _, p := range procedures {
		args, ok := calls[p.name]
		if !ok {
			t.Errorf("no call of %s", p.name)
			continue
		}
		if got, want := argNames(args), paramNames(p.params); !slices.Equal(got, want) {
			t.Errorf("%s: call passes %v, procedure takes %v", p.name, got, want)
		}
	}
	pay := calls["rs_payment"]
	if v := pay[7].(sql.NamedArg).Value; v != gomssql.VarChar("1234.56") {
		t.Errorf("h_amount sent as %#v, want the exact text 1234.56", v)
	}
	if v := pay[6].(sql.NamedArg).Value; v != gomssql.VarChar("BARBARBAR") {
		t.Errorf("c_last sent as %#v, want varchar", v)
	}
	if v := calls["rs_order_status"][4].(sql.NamedArg).Value; v != (sql.NullString{}) {
		t.Errorf("c_last by id sent as %#v, want NULL", v)
	}
	tvp := calls["rs_new_order"][4].(sql.NamedArg).Value.(gomssql.TVP)
	if tvp.TypeName != "dbo.rs_order_line_list" {
		t.Errorf("TVP type %s", tvp.TypeName)
	}
	rows := tvp.Value.([]orderLineRow)
	if !slices.Equal(rows, []orderLineRow{{1, 2, 7, 1, 5}, {2, 1, 9, 2, 1}}) {
		t.Errorf("TVP rows %+v", rows)
	}
	if v := calls["rs_new_order"][3].(sql.NamedArg).Value; v != int32(1) {
		t.Errorf("all_local %#v", v)
	}
}

// TestOrderLineTypeMatchesRow: the TVP struct's fields are the table
// type's columns, in order, all int.
func TestOrderLineTypeMatchesRow(t *testing.T) {
	cols := regexp.MustCompile(`\n\s+(\w+) int NOT NULL`).FindAllStringSubmatch(sqlCreateOrderLineType, -1)
	rt := reflect.TypeOf(orderLineRow{})
	if len(cols) != rt.NumField() {
		t.Fatalf("type has %d columns, struct %d fields", len(cols), rt.NumField())
	}
	want := []string{"seq", "ol_number", "i_id", "supply_w_id", "quantity"}
	for i, c := range cols {
		if c[1] != want[i] || rt.Field(i).Type.Kind() != reflect.Int32 {
			t.Errorf("column %d: %s / field %s %s", i, c[1], rt.Field(i).Name, rt.Field(i).Type)
		}
	}
	if !strings.Contains(sqlCreateOrderLineType, "seq int NOT NULL PRIMARY KEY") {
		t.Error("lines must be keyed by their processing order")
	}
}

var sqlParamRE = regexp.MustCompile(`@(\w+)`)

// usedParams lists the distinct @names a statement uses.
func usedParams(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range sqlParamRE.FindAllStringSubmatch(s, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

func TestNewOrderStatements(t *testing.T) {
	if got := itemsSQL(3); got != "SELECT i_id, CAST(i_price AS float), i_name, i_data FROM dbo.item WHERE i_id IN (@i1, @i2, @i3)" {
		t.Errorf("itemsSQL(3) = %s", got)
	}
	in := &tpcc.NewOrderInput{WID: 1, DID: 3, CID: 42, Lines: []tpcc.OrderLineInput{{Number: 1, ItemID: 10, SupplyWID: 1, Quantity: 3}, {Number: 2, ItemID: 20, SupplyWID: 2, Quantity: 4}}}
	args := newOrderWriteArgs(nil, 3001, in, []int64{1234, 5}, 2)
	w := newOrderWriteSQL(3, 2)
	if got, want := usedParams(w), sorted(argNames(args)); !slices.Equal(got, want) {
		t.Errorf("write batch uses %v, executor sends %v", got, want)
	}
	inOrder(t, "write batch", w,
		"INSERT INTO dbo.orders", "INSERT INTO dbo.new_order",
		"UPDATE dbo.stock SET", "s_quantity = CASE WHEN s_quantity >= @q1 + 10 THEN s_quantity - @q1 ELSE s_quantity - @q1 + 91 END",
		"s_remote_cnt = s_remote_cnt + CASE WHEN @s1 <> @w THEN 1 ELSE 0 END",
		"OUTPUT @o, @d, @w, @n1, @i1, @s1, @q1, @q1 * CAST(@p1 AS numeric(5,2)), inserted.s_dist_03",
		"INTO dbo.order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)",
		"OUTPUT inserted.s_quantity, inserted.s_data", "WHERE s_i_id = @i1 AND s_w_id = @s1;", "UPDATE dbo.stock SET",
		"OUTPUT @o, @d, @w, @n2, @i2", "inserted.s_dist_03",
		"WHERE s_i_id = @i2 AND s_w_id = @s2;")
	if strings.Contains(w, "@i3") {
		t.Error("a 2-line order writes a third line")
	}
	for _, a := range args {
		if na := a.(sql.NamedArg); na.Name == "p1" && na.Value != gomssql.VarChar("12.34") || na.Name == "p2" && na.Value != gomssql.VarChar("0.05") {
			t.Errorf("price %s sent as %#v", na.Name, na.Value)
		}
	}
	all := statementTexts(true)
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		for n := tpcc.MinOrderLines; n <= tpcc.MaxOrderLines; n++ {
			s := all[fmt.Sprintf("new_order/write/d%d/n%d", d, n)]
			if c := strings.Count(s, "inserted.s_dist_"); c != n || strings.Count(s, fmt.Sprintf("inserted.s_dist_%02d", d)) != n {
				t.Errorf("d%d n%d: %d dist columns, want %d of s_dist_%02d", d, n, c, n, d)
			}
		}
	}
}

func TestOtherStatements(t *testing.T) {
	want := map[string][]string{
		"new_order/warehouse":   {"w"},
		"new_order/district":    {"d", "w"},
		"new_order/customer":    {"c", "d", "w"},
		"payment/warehouse":     {"amount", "w"},
		"payment/district":      {"amount", "d", "w"},
		"payment/customer":      {"amount", "c", "cd", "cw", "d", "w"},
		"payment/history":       {"amount", "c", "cd", "cw", "d", "h_data", "w"},
		"by_name":               {"d", "last", "w"},
		"order_status/customer": {"c", "d", "w"},
		"order_status/order":    {"c", "d", "w"},
		"order_status/lines":    {"d", "o", "w"},
		"delivery/oldest":       {"d", "w"},
		"delivery/district":     {"carrier", "d", "o", "w"},
		"stock_level/next":      {"d", "w"},
		"stock_level/count":     {"d", "next", "threshold", "w"},
	}
	texts := statementTexts(false)
	for name, params := range want {
		if got := usedParams(texts[name]); !slices.Equal(got, params) {
			t.Errorf("%s uses %v, executor sends %v", name, got, params)
		}
	}
	for _, f := range []string{
		"UPDATE dbo.district SET d_next_o_id = d_next_o_id + 1\n  OUTPUT CAST(inserted.d_tax AS float), deleted.d_next_o_id",
	} {
		if !strings.Contains(sqlNODistrict, f) {
			t.Errorf("district update lacks %q", f)
		}
	}
	inOrder(t, "payment customer", sqlPayCustomer, "c_data = CASE WHEN c_credit = 'BC' THEN LEFT(",
		"CAST(CAST(@amount AS numeric(6,2)) AS varchar(10)) + ' | ' + c_data, 500)",
		"c_balance = c_balance - CAST(@amount AS numeric(6,2))", "OUTPUT CAST(inserted.c_balance AS float)")
	if !strings.Contains(sqlByName, "ORDER BY c_first, c_id") {
		t.Error("by-name order")
	}
	if !strings.Contains(sqlDeliveryOldest, "WITH (UPDLOCK, ROWLOCK)") {
		t.Error("delivery must U-lock the oldest new order")
	}
	if middle([]int32{1}) != 1 || middle([]int32{1, 2}) != 1 || middle([]int32{1, 2, 3}) != 2 || middle([]int32{1, 2, 3, 4}) != 2 {
		t.Error("middle is not the ceil(n/2)-th")
	}
	for _, c := range "isqpn" {
		for k := 0; k <= 20; k++ {
			if got := lineParam(byte(c), k); got != fmt.Sprintf("%c%d", c, k) {
				t.Errorf("lineParam(%c, %d) = %s", c, k, got)
			}
		}
	}
}

func TestOrderTotalIsExact(t *testing.T) {
	cases := []struct {
		sum              int64
		disc, wTax, dTax float64
		want             float64
	}{
		{12345, 0.1, 0.05, 0.07, 124.44}, // 123.45 * 0.9 * 1.12 = 124.4376
		{1, 0.5, 0, 0, 0.01},             // 0.005 rounds away from zero
		{3, 0.5, 0, 0, 0.02},             // 0.015
		{100000, 0, 0.2, 0.2, 1400},
		{0, 0.3, 0.1, 0.1, 0},
	}
	for _, c := range cases {
		if got := orderTotal(c.sum, c.disc, c.wTax, c.dTax); got != c.want {
			t.Errorf("orderTotal(%d, %v, %v, %v) = %v, want %v", c.sum, c.disc, c.wTax, c.dTax, got, c.want)
		}
	}
	// Against exact rational arithmetic with T-SQL ROUND (half away from zero).
	r := tpcc.NewRand(1, 2)
	for range 20000 {
		sum := int64(r.Int(1, 1_500_000))
		disc, wt, dt := r.Int(0, 5000), r.Int(0, 2000), r.Int(0, 2000)
		x := new(big.Rat).SetFrac64(sum, 100)
		x.Mul(x, big.NewRat(int64(10000-disc), 10000))
		x.Mul(x, big.NewRat(int64(10000+wt+dt), 10000))
		x.Mul(x, big.NewRat(100, 1)) // in cents
		q, m := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
		if new(big.Int).Mul(m, big.NewInt(2)).Cmp(x.Denom()) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		want := float64(q.Int64()) / 100
		if got := orderTotal(sum, float64(disc)/10000, float64(wt)/10000, float64(dt)/10000); got != want {
			t.Fatalf("orderTotal(%d, %d, %d, %d) = %v, want %v", sum, disc, wt, dt, got, want)
		}
	}
}

func TestAmountsAsText(t *testing.T) {
	for _, c := range []struct {
		cents int64
		text  string
	}{{123456, "1234.56"}, {5, "0.05"}, {-5, "-0.05"}, {0, "0.00"}, {-1000, "-10.00"}, {100, "1.00"}} {
		if got := centsText(c.cents); got != c.text {
			t.Errorf("centsText(%d) = %s, want %s", c.cents, got, c.text)
		}
	}
	// Every Payment amount the workload draws survives float64 exactly.
	for c := int64(100); c <= 500000; c++ {
		if got := cents(float64(c) / 100); got != c {
			t.Fatalf("cents(%d/100) = %d", c, got)
		}
	}
}

func TestBulkValue(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		in   any
		want any
	}{
		{int32(7), int32(7)}, {"abc", "abc"}, {now, now}, {nil, nil},
		{0.29, "0.29"}, {300000.00, "300000"}, {-10.0, "-10"}, {0.1234, "0.1234"}, {9999.99, "9999.99"}, {0.0, "0"},
		{float64(2000) / 10000, "0.2"}, {int16(3), int32(3)}, {true, int32(1)},
	} {
		got, err := bulkValue(c.in)
		if err != nil || got != c.want {
			t.Errorf("bulkValue(%#v) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), struct{}{}, []int{1}} {
		if _, err := bulkValue(bad); err == nil {
			t.Errorf("bulkValue(%#v) accepted", bad)
		}
	}
}

// TestGeneratedRowsFitTheSchema bulk-converts every generated row of one
// warehouse and checks each value against its column's T-SQL type as bulk
// copy would: ints for int, decimal text within precision and scale for
// numeric (go-mssqldb refuses more decimals than the scale), strings no
// longer than the column, times or NULL for datetime.
func TestGeneratedRowsFitTheSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	numRE := regexp.MustCompile(`^numeric\((\d+),(\d+)\)$`)
	lenRE := regexp.MustCompile(`^n?(?:var)?char\((\d+)\)$`)
	cfg := tpcc.GenConfig{Seed: 42, LoadTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Constants: tpcc.LoadConstants(42)}
	for _, tab := range tpcc.Tables {
		_, types := ddlColumns(ddlFor(t, string(tab)))
		cols := tpcc.Columns[tab]
		src := tpcc.Generate(cfg, tab, 1)
		rows := 0
		for src.Next() && !t.Failed() {
			vals, err := src.Values()
			if err != nil {
				t.Fatal(err)
			}
			rows++
			for i, v := range vals {
				bv, err := bulkValue(v)
				if err != nil {
					t.Fatalf("%s.%s: %v", tab, cols[i], err)
				}
				typ := types[cols[i]]
				if bv == nil {
					continue
				}
				switch {
				case typ == "int":
					if _, ok := bv.(int32); !ok {
						t.Errorf("%s.%s (int) gets %T", tab, cols[i], bv)
					}
				case typ == "datetime":
					if _, ok := bv.(time.Time); !ok {
						t.Errorf("%s.%s (datetime) gets %T", tab, cols[i], bv)
					}
				case numRE.MatchString(typ):
					m := numRE.FindStringSubmatch(typ)
					p, _ := strconv.Atoi(m[1])
					s, _ := strconv.Atoi(m[2])
					text, ok := bv.(string)
					if !ok {
						t.Errorf("%s.%s (%s) gets %T", tab, cols[i], typ, bv)
						continue
					}
					intPart, frac, _ := strings.Cut(strings.TrimPrefix(text, "-"), ".")
					if len(frac) > s || len(strings.TrimLeft(intPart, "0")) > p-s {
						t.Errorf("%s.%s: %q does not fit %s", tab, cols[i], text, typ)
					}
				case lenRE.MatchString(typ):
					n, _ := strconv.Atoi(lenRE.FindStringSubmatch(typ)[1])
					text, ok := bv.(string)
					if !ok || len(text) > n {
						t.Errorf("%s.%s (%s) gets %#v", tab, cols[i], typ, bv)
					}
				default:
					t.Errorf("%s.%s: unknown type %q", tab, cols[i], typ)
				}
			}
		}
		if want := tpcc.InitialRows(tab, 1); tab != tpcc.OrderLine && int64(rows) != want {
			t.Errorf("%s: %d rows, want %d", tab, rows, want)
		}
	}
}

func TestCopyInSQL(t *testing.T) {
	s := copyInSQL(tpcc.Stock)
	rest, ok := strings.CutPrefix(s, "INSERTBULK ")
	if !ok {
		t.Fatalf("not a go-mssqldb bulk copy statement: %s", s)
	}
	var cfg struct {
		TableName   string
		ColumnsName []string
		Options     gomssql.BulkOptions
	}
	if err := json.Unmarshal([]byte(rest), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.TableName != "dbo.stock" || !slices.Equal(cfg.ColumnsName, tpcc.Columns[tpcc.Stock]) || !cfg.Options.KeepNulls || cfg.Options.Tablock {
		t.Errorf("bulk copy config %+v", cfg)
	}
}

func TestCheckSQL(t *testing.T) {
	boolCompare := regexp.MustCompile(`(?i)(IS NULL\)|\bEXISTS\s*\([^)]*\))\s*(<>|=)|(<>|=)\s*(NOT\s+)?EXISTS\b`)
	for _, c := range tpcc.Checks {
		s := checkSQL(c)
		if boolCompare.MatchString(s) {
			t.Errorf("%s compares booleans, which T-SQL cannot:\n%s", c.ID, s)
		}
		if _, over := checkOverrides[c.ID]; !over && s != c.SQL {
			t.Errorf("%s rewritten without an override", c.ID)
		}
	}
	s := checkSQL(tpcc.Check{ID: "3.3.2.5"})
	inOrder(t, "3.3.2.5", s, "SELECT count(*) FROM orders o", "CASE WHEN o.o_carrier_id IS NULL THEN 1 ELSE 0 END", "<>",
		"CASE WHEN EXISTS (SELECT 1 FROM new_order n WHERE n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id) THEN 1 ELSE 0 END")
	for id := range checkOverrides {
		found := false
		for _, c := range tpcc.Checks {
			found = found || c.ID == id
		}
		if !found {
			t.Errorf("override for unknown check %s", id)
		}
	}
}

func TestTSQLTranslation(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT sum(length(c_data)) FROM customer", "SELECT sum(CAST(LEN(c_data) AS decimal(38, 4))) FROM customer"},
		{"SELECT CAST(round(sum(w_ytd) * 100) AS bigint) FROM warehouse",
			"SELECT CAST(round(sum(CAST(w_ytd AS decimal(38, 4))) * 100, 0) AS bigint) FROM warehouse"},
		{"SELECT sum(ol_i_id) + sum(ol_quantity) + count(ol_delivery_d) FROM order_line",
			"SELECT sum(CAST(ol_i_id AS decimal(38, 4))) + sum(CAST(ol_quantity AS decimal(38, 4))) + count(ol_delivery_d) FROM order_line"},
		{"SELECT round(x, 2), ROUND ( y ) FROM t", "SELECT round(x, 2), round( y , 0) FROM t"},
		{"SELECT count(*) FROM t WHERE a = 'length(x) sum(y)'", "SELECT count(*) FROM t WHERE a = 'length(x) sum(y)'"},
		{"SELECT sum(DISTINCT a) FROM t", "SELECT sum(DISTINCT CAST(a AS decimal(38, 4))) FROM t"},
		{"SELECT x.sum(a), my_length(b), @sum FROM t", "SELECT x.sum(a), my_length(b), @sum FROM t"},
		{"SELECT 'it''s' + length(a) FROM t", "SELECT 'it''s' + LEN(a) FROM t"},
		{"SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3", "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3"},
	} {
		got := tsql(c.in)
		if got != c.want {
			t.Errorf("tsql(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := tsql(got); again != got {
			t.Errorf("translating twice changes %q into %q", got, again)
		}
	}
	for _, c := range tpcc.Checks {
		if s := tsql(checkSQL(c)); strings.Contains(strings.ToLower(s), "length(") {
			t.Errorf("%s: %s", c.ID, s)
		}
	}
}

func TestToInt64(t *testing.T) {
	for _, c := range []struct {
		in   any
		want int64
	}{{int64(5), 5}, {int32(-3), -3}, {[]byte("123.0000"), 123}, {"42", 42}, {float64(7), 7}, {[]byte("-1500000000000.00"), -1500000000000}, {true, 1}} {
		if got, err := toInt64(c.in); err != nil || got != c.want {
			t.Errorf("toInt64(%#v) = %d, %v", c.in, got, err)
		}
	}
	for _, bad := range []any{nil, "1.5", []byte("x"), 2.5, time.Now()} {
		if _, err := toInt64(bad); err == nil {
			t.Errorf("toInt64(%#v) accepted", bad)
		}
	}
}

func TestURLs(t *testing.T) {
	u, name, err := parseURL("sqlserver://sa:s3cret@db.example:1433?database=tpcc&encrypt=disable")
	if err != nil || name != "tpcc" || u.Host != "db.example:1433" {
		t.Fatalf("parseURL: %v %q %v", u, name, err)
	}
	for raw, want := range map[string]string{
		"sqlserver://sa:x@h?Database=Tpcc1":          "Tpcc1",
		"sqlserver://sa:x@h?initial+catalog=bench":   "bench",
		"sqlserver://sa:x@h/SQLEXPRESS?database=a_b": "a_b",
		"sqlserver://sa:x@h:1433":                    "",
	} {
		if _, got, err := parseURL(raw); err != nil || got != want {
			t.Errorf("parseURL(%s) database %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, bad := range []string{"postgres://u:s3cret@h/db", "sqlserver://", "sqlserver://u:s3cret@h:1433?database=x%zz", "::"} {
		_, _, err := parseURL(bad)
		if err == nil {
			t.Errorf("parseURL(%s) accepted", bad)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
	got, err := withDatabase("sqlserver://sa:p%40ss@h:1433?Database=tpcc&encrypt=disable", "master")
	if err != nil {
		t.Fatal(err)
	}
	if _, name, _ := parseURL(got); name != "master" || strings.Contains(got, "tpcc") || !strings.Contains(got, "encrypt=disable") || !strings.Contains(got, "sa:p%40ss@") {
		t.Errorf("withDatabase: %s", got)
	}
	app, _ := withAppName("sqlserver://sa:x@h?database=d")
	if !strings.Contains(app, "app+name=rightsize") {
		t.Errorf("withAppName: %s", app)
	}
	if same, _ := withAppName("sqlserver://sa:x@h?database=d&App+Name=mine"); same != "sqlserver://sa:x@h?database=d&App+Name=mine" {
		t.Errorf("withAppName overrode the user's: %s", same)
	}
	for raw, want := range map[string]string{
		"sqlserver://sa:s3cret@h:1433?database=tpcc":           "sqlserver://sa:xxxxx@h:1433?database=tpcc",
		"sqlserver://sa@h:1433?database=tpcc&password=s3cret":  "sqlserver://sa@h:1433?database=tpcc&password=xxxxx",
		"sqlserver://h:1433?database=tpcc&user+id=sa&PWD=s3cr": "sqlserver://h:1433?database=tpcc&user+id=sa&PWD=xxxxx",
		"sqlserver://h?database=tpcc&password=s3%zz":           "sqlserver://h?database=tpcc&password=xxxxx",
		"sqlserver://h?database=tpcc":                          "sqlserver://h?database=tpcc",
		"sqlserver://u:s3cret@h?database=x%zz":                 "sqlserver://u:xxxxx@h?database=x%zz",
		"::s3cret":                                             "sqlserver://(unparsable URL)",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestOpenRefusesBeforeConnecting(t *testing.T) {
	ctx := context.Background()
	for raw, frag := range map[string]string{
		"sqlserver://sa:s3cret@127.0.0.1:1":                   "names no database",
		"sqlserver://sa:s3cret@127.0.0.1:1?database=master":   "system database",
		"sqlserver://sa:s3cret@127.0.0.1:1?database=TempDB":   "system database",
		"mysql://sa:s3cret@127.0.0.1:1?database=tpcc":         "scheme",
		"sqlserver://sa:s3cret@127.0.0.1:1?database=tpcc&x=1": "connect to SQL Server", // port 1: nothing listens
	} {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		db, err := Open(c, raw, 2)
		cancel()
		if err == nil {
			db.Close()
			t.Errorf("Open(%s) succeeded", raw)
			continue
		}
		if !strings.Contains(err.Error(), frag) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%s): %v (want %q, no password)", raw, err, frag)
		}
	}
	if err := EnsureDatabase(ctx, "sqlserver://sa:s3cret@127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "names no database") {
		t.Errorf("EnsureDatabase without database: %v", err)
	}
}

func TestClassify(t *testing.T) {
	deadlock := gomssql.Error{Number: 1205, Class: 13, Message: "Transaction (Process ID 57) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction."}
	reraised := gomssql.Error{Number: 50000, Class: 16, Message: "rs_error 1205 in rs_new_order: " + deadlock.Message, ProcName: "rs_new_order"}
	for _, c := range []struct {
		name string
		err  error
		want engine.ErrClass
	}{
		{"deadlock", deadlock, engine.ErrRetry},
		{"wrapped deadlock", fmt.Errorf("payment: %w", deadlock), engine.ErrRetry},
		{"deadlock re-raised by a procedure", reraised, engine.ErrRetry},
		{"snapshot update conflict", gomssql.Error{Number: 3960, Class: 16}, engine.ErrRetry},
		{"snapshot conflict re-raised", gomssql.Error{Number: 50000, Class: 16, Message: "rs_error 3960 in rs_payment: Snapshot isolation transaction aborted"}, engine.ErrRetry},
		{"deadlock among several errors", gomssql.Error{Number: 3998, Class: 16, All: []gomssql.Error{deadlock, {Number: 3998, Class: 16}}}, engine.ErrRetry},
		{"joined with nil (the deadlock's winner)", errors.Join(nil, deadlock), engine.ErrRetry},
		{"constraint violation", gomssql.Error{Number: 2627, Class: 14}, engine.ErrOther},
		{"re-raised constraint violation", gomssql.Error{Number: 50000, Class: 16, Message: "rs_error 2627 in rs_new_order: Violation of PRIMARY KEY"}, engine.ErrOther},
		{"plain RAISERROR", gomssql.Error{Number: 50000, Class: 16, Message: "rs_error x"}, engine.ErrOther},
		{"invalid object", gomssql.Error{Number: 208, Class: 16}, engine.ErrOther},
		{"fatal severity", gomssql.Error{Number: 596, Class: 21, Message: "Cannot continue the execution because the session is in the kill state."}, engine.ErrConnection},
		{"bad connection", driver.ErrBadConn, engine.ErrConnection},
		{"wrapped bad connection", fmt.Errorf("begin: %w", driver.ErrBadConn), engine.ErrConnection},
		{"connection done", sql.ErrConnDone, engine.ErrConnection},
		{"EOF", io.EOF, engine.ErrConnection},
		{"unexpected EOF", io.ErrUnexpectedEOF, engine.ErrConnection},
		{"network", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, engine.ErrConnection},
		{"closed", fmt.Errorf("x: %w", net.ErrClosed), engine.ErrConnection},
		{"stream", gomssql.StreamError{InnerError: errors.New("bad token")}, engine.ErrConnection},
		{"server error", gomssql.ServerError{}, engine.ErrConnection},
		{"context deadline", context.DeadlineExceeded, engine.ErrOther},
		{"context canceled", fmt.Errorf("q: %w", context.Canceled), engine.ErrOther},
		{"other", errors.New("no customer"), engine.ErrOther},
		{"nil", nil, engine.ErrOther},
	} {
		if got := classify(c.err); got != c.want {
			t.Errorf("%s: classify(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
	if !hasNumber(fmt.Errorf("read: %w", gomssql.Error{Number: 208}), errInvalidObject) || hasNumber(errors.New("208"), errInvalidObject) {
		t.Error("hasNumber")
	}
	if n, ok := reraisedNumber("rs_error 1205 in rs_delivery: x"); !ok || n != 1205 {
		t.Errorf("reraisedNumber: %d %v", n, ok)
	}
	if _, ok := reraisedNumber("error 1205"); ok {
		t.Error("reraisedNumber accepted a foreign message")
	}
}

func TestCounterQueries(t *testing.T) {
	names := regexp.MustCompile(`N'([^'%]+/sec)'`).FindAllStringSubmatch(sqlPerfCounters, -1)
	if len(names) != len(perfCounterKeys) {
		t.Errorf("query reads %d counters, %d mapped", len(names), len(perfCounterKeys))
	}
	for _, m := range names {
		if _, ok := perfCounterKeys[m[1]]; !ok {
			t.Errorf("counter %q has no Extra key", m[1])
		}
	}
	for _, want := range []string{"Batch Requests/sec", "Transactions/sec"} {
		if !strings.Contains(sqlPerfCounters, "N'"+want+"'") {
			t.Errorf("counters lack %s", want)
		}
	}
	if n := strings.Count(sqlFileStats, "CAST(SUM("); n != len(fileStatKeys) {
		t.Errorf("file stats query has %d columns, %d keys", n, len(fileStatKeys))
	}
	for _, k := range []string{"io_stall_read_ms", "io_stall_write_ms", "num_of_reads", "num_of_writes"} {
		if !slices.Contains(fileStatKeys, k) || !strings.Contains(sqlFileStats, "v."+k) {
			t.Errorf("file stats lack %s", k)
		}
	}
	c := engine.Counters{Extra: map[string]int64{"transactions": 100, "page_reads": 30, "page_lookups": 1000, "log_bytes_flushed": 4096}}
	applyPerfCounters(&c)
	if c.Commits != 100 || c.BlocksRead != 30 || c.BlocksHit != 970 || c.WALBytes != 4096 {
		t.Errorf("applyPerfCounters: %+v", c)
	}
}

func TestVersionFirstLine(t *testing.T) {
	v := "Microsoft SQL Server 2017 (RTM-CU31) (KB5016884) - 14.0.3456.2 (X64) \n\tSep  2 2022 11:01:50 \n\tCopyright (C) 2017 Microsoft Corporation\n"
	if got := firstLine(v); got != "Microsoft SQL Server 2017 (RTM-CU31) (KB5016884) - 14.0.3456.2 (X64)" {
		t.Errorf("firstLine: %q", got)
	}
}

// TestSessionIsolation: level 3 (clause 3.4) is SERIALIZABLE on SQL Server
// (its REPEATABLE READ allows phantoms); read-committed reproduces HammerDB.
func TestSessionIsolation(t *testing.T) {
	for iso, want := range map[engine.Isolation]string{
		engine.IsolationSpec: "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;", engine.IsolationReadCommitted: "SET TRANSACTION ISOLATION LEVEL READ COMMITTED;"} {
		if got := sessionSetup(iso); !strings.HasSuffix(got, want) || !strings.Contains(got, "SET XACT_ABORT ON;") {
			t.Errorf("%s: session setup %q", iso, got)
		}
	}
	if !strings.Contains(procByName(t, "rs_stock_level"), "SET TRANSACTION ISOLATION LEVEL READ COMMITTED;") {
		t.Error("rs_stock_level should run at read committed (2.8.2.3)")
	}
}
