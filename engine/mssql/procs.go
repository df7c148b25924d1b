package mssql

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/tpcc"
)

// orderLineType is the table type that carries New-Order's lines into
// rs_new_order as a table-valued parameter (SQL Server 2008+; no
// STRING_SPLIT or OPENJSON, which need 2016 and compatibility level 130).
const orderLineType = "rs_order_line_list"

// sqlCreateOrderLineType creates orderLineType. Its columns match
// orderLineRow field for field.
const sqlCreateOrderLineType = `CREATE TYPE dbo.rs_order_line_list AS TABLE (
  seq int NOT NULL PRIMARY KEY,
  ol_number int NOT NULL,
  i_id int NOT NULL,
  supply_w_id int NOT NULL,
  quantity int NOT NULL)`

// procedure is one T-SQL stored procedure. Its text is assembled by sql():
// SET NOCOUNT ON and SET XACT_ABORT ON, the declarations, then the body in
// BEGIN TRY / BEGIN TRANSACTION ... COMMIT TRANSACTION / END TRY, a CATCH
// block that rolls back and re-raises, and finally the one-row result.
type procedure struct {
	name   string
	params string // the parameter list
	decls  string // DECLAREs and initialisation, before the transaction
	body   string // the statements inside the transaction
	result string // after COMMIT: the SELECT returning the one result row
}

// catchBlock rolls back whatever is left of the transaction and re-raises
// the error. RAISERROR cannot raise a system error number such as 1205 (and
// THROW, which keeps it, needs SQL Server 2012), so the original number
// leads the message: "rs_error 1205 in rs_new_order: Transaction (Process
// ID 57) was deadlocked ...". Classify reads it back (effectiveNumber).
const catchBlock = `  BEGIN CATCH
    IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
    SELECT @err_no = ERROR_NUMBER(), @err_msg = ERROR_MESSAGE();
    RAISERROR(N'` + reraisePrefix + `%%d in %s: %%s', 16, 1, @err_no, @err_msg);
    RETURN 1;
  END CATCH
`

// sql returns the CREATE PROCEDURE batch.
func (p procedure) sql() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE PROCEDURE dbo.%s\n%s\nAS\nBEGIN\n", p.name, p.params)
	b.WriteString("  SET NOCOUNT ON;\n  SET XACT_ABORT ON;\n")
	b.WriteString("  DECLARE @err_no int, @err_msg nvarchar(2048);\n")
	b.WriteString(p.decls)
	b.WriteString("  BEGIN TRY\n    BEGIN TRANSACTION;\n")
	b.WriteString(p.body)
	b.WriteString("    COMMIT TRANSACTION;\n  END TRY\n")
	fmt.Fprintf(&b, catchBlock, p.name)
	b.WriteString(p.result)
	b.WriteString("END")
	return b.String()
}

// distCase picks the S_DIST_xx column of district @d_id.
func distCase() string {
	var b strings.Builder
	b.WriteString("CASE @d_id")
	for d := 1; d < tpcc.DistrictsPerWarehouse; d++ {
		fmt.Fprintf(&b, " WHEN %d THEN s_dist_%02d", d, d)
	}
	fmt.Fprintf(&b, " ELSE s_dist_%02d END", tpcc.DistrictsPerWarehouse)
	return b.String()
}

// byNameBlock sets @c_id to the ceil(n/2)-th customer (1-based) named
// @c_last in district (@w, @d), ordered by c_first then c_id (clause
// 2.5.2.2). ROW_NUMBER needs 2005; OFFSET/FETCH (2012) is not used.
func byNameBlock(w, d string) string {
	return fmt.Sprintf(`    IF @by_name = 1
    BEGIN
      SELECT @n = COUNT(*) FROM dbo.customer WHERE c_w_id = %[1]s AND c_d_id = %[2]s AND c_last = @c_last;
      IF @n = 0
        RAISERROR(N'no customer named %%s in district %%d/%%d', 16, 1, @c_last, %[1]s, %[2]s);
      SELECT @c_id = t.c_id FROM (
          SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first, c_id) AS rn
          FROM dbo.customer WHERE c_w_id = %[1]s AND c_d_id = %[2]s AND c_last = @c_last) AS t
        WHERE t.rn = (@n + 1) / 2;
    END
`, w, d)
}

// The five transactions. They follow the PostgreSQL engine's PL/pgSQL
// statement for statement, and stmt.go follows them.
var procedures = []procedure{
	{
		name: "rs_new_order",
		params: `  @w_id int,
  @d_id int,
  @c_id int,
  @all_local int,
  @lines dbo.rs_order_line_list READONLY`,
		decls: `  DECLARE @w_tax numeric(4,4), @d_tax numeric(4,4), @o_id int, @c_discount numeric(4,4), @c_last varchar(16), @c_credit char(2);
  DECLARE @ol_cnt int, @i int, @ol_number int, @ol_i_id int, @ol_supply_w_id int, @ol_quantity int, @s_quantity int;
  DECLARE @screen varchar(4000);
  DECLARE @i_price numeric(5,2), @i_name varchar(24), @i_data varchar(50), @s_data varchar(50), @s_dist char(24);
  DECLARE @ol_amount numeric(6,2), @sum numeric(12,2), @f_disc numeric(5,4), @f_tax numeric(5,4), @total numeric(12,2);
  SELECT @ol_cnt = COUNT(*) FROM @lines;
  SET @sum = 0;
  SET @screen = '';
`,
		body: `    SELECT @w_tax = w_tax FROM dbo.warehouse WHERE w_id = @w_id;
    UPDATE dbo.district SET @d_tax = d_tax, @o_id = d_next_o_id, d_next_o_id = d_next_o_id + 1
      WHERE d_w_id = @w_id AND d_id = @d_id;
    SELECT @c_discount = c_discount, @c_last = c_last, @c_credit = c_credit
      FROM dbo.customer WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_id = @c_id;
    INSERT INTO dbo.orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
      VALUES (@o_id, @d_id, @w_id, @c_id, GETDATE(), NULL, @ol_cnt, @all_local);
    INSERT INTO dbo.new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @d_id, @w_id);
    SET @i = 1;
    WHILE @i <= @ol_cnt
    BEGIN
      -- lines come sorted by (supply warehouse, item): stock is locked in one order
      SELECT @ol_number = ol_number, @ol_i_id = i_id, @ol_supply_w_id = supply_w_id, @ol_quantity = quantity FROM @lines WHERE seq = @i;
      SELECT @i_price = i_price, @i_name = i_name, @i_data = i_data FROM dbo.item WHERE i_id = @ol_i_id;
      IF @@ROWCOUNT = 0
      BEGIN
        -- The simulated user error of clause 2.4.2.3 (an unused item, the
        -- last line, after every valid one was processed): undo everything.
        ROLLBACK TRANSACTION;
        SELECT CAST(0 AS int) AS o_id, CAST(0 AS float) AS total, CAST(1 AS int) AS rolled_back, CAST('' AS varchar(1)) AS screen;
        RETURN 0;
      END
      UPDATE dbo.stock SET
          @s_quantity = s_quantity = CASE WHEN s_quantity >= @ol_quantity + 10 THEN s_quantity - @ol_quantity ELSE s_quantity - @ol_quantity + 91 END,
          s_ytd = s_ytd + @ol_quantity,
          s_order_cnt = s_order_cnt + 1,
          s_remote_cnt = s_remote_cnt + CASE WHEN @ol_supply_w_id <> @w_id THEN 1 ELSE 0 END,
          @s_data = s_data,
          @s_dist = ` + distCase() + `
        WHERE s_i_id = @ol_i_id AND s_w_id = @ol_supply_w_id;
      SET @ol_amount = @ol_quantity * @i_price;
      SET @sum = @sum + @ol_amount;
      INSERT INTO dbo.order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (@o_id, @d_id, @w_id, @ol_number, @ol_i_id, @ol_supply_w_id, NULL, @ol_quantity, @ol_amount, @s_dist);
      SET @screen = @screen + CHAR(30) + @i_name + CHAR(31) + CAST(@s_quantity AS varchar(10)) + CHAR(31)
        + CASE WHEN CHARINDEX('ORIGINAL', @i_data) > 0 AND CHARINDEX('ORIGINAL', @s_data) > 0 THEN 'B' ELSE 'G' END
        + CHAR(31) + CAST(@i_price AS varchar(10)) + CHAR(31) + CAST(@ol_amount AS varchar(10));
      SET @i = @i + 1;
    END
`,
		// numeric(12,2) * numeric(5,4) * numeric(5,4) is exact (scale 10),
		// and ROUND rounds half away from zero; stmt.go's orderTotal agrees.
		result: `  SET @f_disc = 1 - @c_discount;
  SET @f_tax = 1 + @w_tax + @d_tax;
  SET @total = ROUND(@sum * @f_disc * @f_tax, 2);
  SELECT @o_id AS o_id, CAST(@total AS float) AS total, CAST(0 AS int) AS rolled_back,
    @c_last + CHAR(31) + @c_credit + CHAR(31) + CAST(@c_discount AS varchar(10)) + CHAR(31) + CAST(@w_tax AS varchar(10))
    + CHAR(31) + CAST(@d_tax AS varchar(10)) + @screen AS screen;
`,
	},
	{
		name: "rs_payment",
		params: `  @w_id int,
  @d_id int,
  @c_w_id int,
  @c_d_id int,
  @c_id int,
  @by_name bit,
  @c_last varchar(16),
  @h_amount numeric(6,2)`,
		decls: `  DECLARE @w_name varchar(10), @d_name varchar(10), @n int, @c_balance numeric(12,2);
  DECLARE @w_street_1 varchar(20), @w_street_2 varchar(20), @w_city varchar(20), @w_state char(2), @w_zip char(9);
  DECLARE @d_street_1 varchar(20), @d_street_2 varchar(20), @d_city varchar(20), @d_state char(2), @d_zip char(9);
  DECLARE @c_first varchar(16), @c_middle char(2), @c_street_1 varchar(20), @c_street_2 varchar(20), @c_city varchar(20);
  DECLARE @c_state char(2), @c_zip char(9), @c_phone char(16), @c_credit char(2), @c_credit_lim numeric(12,2);
  DECLARE @c_discount numeric(4,4), @c_data varchar(200);
`,
		body: `    UPDATE dbo.warehouse SET w_ytd = w_ytd + @h_amount, @w_name = w_name, @w_street_1 = w_street_1, @w_street_2 = w_street_2,
        @w_city = w_city, @w_state = w_state, @w_zip = w_zip
      WHERE w_id = @w_id;
    UPDATE dbo.district SET d_ytd = d_ytd + @h_amount, @d_name = d_name, @d_street_1 = d_street_1, @d_street_2 = d_street_2,
        @d_city = d_city, @d_state = d_state, @d_zip = d_zip
      WHERE d_w_id = @w_id AND d_id = @d_id;
` + byNameBlock("@c_w_id", "@c_d_id") + `    UPDATE dbo.customer SET
        c_ytd_payment = c_ytd_payment + @h_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC' THEN LEFT(` + bcPrefix("@d_id", "@w_id", "@h_amount") + ` + c_data, 500) ELSE c_data END,
        @c_balance = c_balance = c_balance - @h_amount
      WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
    INSERT INTO dbo.history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
      VALUES (@c_id, @c_d_id, @c_w_id, @d_id, @w_id, GETDATE(), @h_amount, @w_name + '    ' + @d_name);
    SELECT @c_first = c_first, @c_middle = c_middle, @c_last = c_last, @c_street_1 = c_street_1, @c_street_2 = c_street_2,
        @c_city = c_city, @c_state = c_state, @c_zip = c_zip, @c_phone = c_phone, @c_credit = c_credit,
        @c_credit_lim = c_credit_lim, @c_discount = c_discount,
        @c_data = CASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) ELSE '' END
      FROM dbo.customer WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
`,
		// the output screen (clause 2.5.3.3), in the order paymentScreen scans it
		result: `  SELECT @c_id AS c_id, CAST(@c_balance AS float) AS c_balance,
    @w_street_1, @w_street_2, @w_city, @w_state, @w_zip, @d_street_1, @d_street_2, @d_city, @d_state, @d_zip,
    @c_first, @c_middle, @c_last, @c_street_1, @c_street_2, @c_city, @c_state, @c_zip, @c_phone, @c_credit,
    CAST(@c_credit_lim AS float), CAST(@c_discount AS float), @c_data;
`,
	},
	{
		name: "rs_order_status",
		params: `  @w_id int,
  @d_id int,
  @c_id int,
  @by_name bit,
  @c_last varchar(16)`,
		decls: `  DECLARE @n int, @c_balance numeric(12,2), @c_first varchar(16), @c_middle char(2);
  DECLARE @o_id int, @o_entry_d datetime, @o_carrier_id int;
`,
		body: byNameBlock("@w_id", "@d_id") + `    SELECT @c_balance = c_balance, @c_first = c_first, @c_middle = c_middle, @c_last = c_last
      FROM dbo.customer WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_id = @c_id;
    SELECT TOP (1) @o_id = o_id, @o_entry_d = o_entry_d, @o_carrier_id = o_carrier_id
      FROM dbo.orders WHERE o_w_id = @w_id AND o_d_id = @d_id AND o_c_id = @c_id ORDER BY o_id DESC;
    -- the first result set: every line of the order (clause 2.6.2.2)
    SELECT ol_i_id, ol_supply_w_id, ol_quantity, CAST(ol_amount AS float), CASE WHEN ol_delivery_d IS NULL THEN 0 ELSE 1 END
      FROM dbo.order_line WHERE ol_w_id = @w_id AND ol_d_id = @d_id AND ol_o_id = @o_id ORDER BY ol_number;
`,
		// the second result set: the customer and the order
		result: `  SELECT @c_id AS c_id, CAST(@c_balance AS float) AS c_balance, @c_first, @c_middle, @c_last,
    ISNULL(@o_id, 0) AS o_id, ISNULL(@o_carrier_id, 0) AS carrier;
`,
	},
	{
		name: "rs_delivery",
		params: `  @w_id int,
  @o_carrier_id int`,
		decls: `  DECLARE @d_id int, @no_o_id int, @c_id int, @ol_total numeric(12,2), @delivered int, @skipped int;
  SET @d_id = 1;
  SET @delivered = 0;
  SET @skipped = 0;
`,
		// All ten districts in one transaction; a district without an
		// undelivered order is skipped and counted (clause 2.7.4.2). The
		// oldest NEW-ORDER row is read with an update lock: a concurrent
		// Delivery of the same warehouse waits for it, and once the first
		// commits its scan goes on to the next row (the deleted one no
		// longer qualifies), so a district with undelivered orders is never
		// counted as skipped.
		body: fmt.Sprintf(`    WHILE @d_id <= %d
    BEGIN
      SET @no_o_id = NULL;
      SELECT TOP (1) @no_o_id = no_o_id FROM dbo.new_order WITH (UPDLOCK, ROWLOCK)
        WHERE no_w_id = @w_id AND no_d_id = @d_id ORDER BY no_o_id;
      IF @no_o_id IS NULL
        SET @skipped = @skipped + 1;
      ELSE
      BEGIN
        DELETE FROM dbo.new_order WHERE no_w_id = @w_id AND no_d_id = @d_id AND no_o_id = @no_o_id;
        UPDATE dbo.orders SET o_carrier_id = @o_carrier_id, @c_id = o_c_id
          WHERE o_w_id = @w_id AND o_d_id = @d_id AND o_id = @no_o_id;
        UPDATE dbo.order_line SET ol_delivery_d = GETDATE()
          WHERE ol_w_id = @w_id AND ol_d_id = @d_id AND ol_o_id = @no_o_id;
        SELECT @ol_total = SUM(ol_amount) FROM dbo.order_line
          WHERE ol_w_id = @w_id AND ol_d_id = @d_id AND ol_o_id = @no_o_id;
        UPDATE dbo.customer SET c_balance = c_balance + @ol_total, c_delivery_cnt = c_delivery_cnt + 1
          WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_id = @c_id;
        SET @delivered = @delivered + 1;
      END
      SET @d_id = @d_id + 1;
    END
`, tpcc.DistrictsPerWarehouse),
		result: `  SELECT @delivered AS delivered, @skipped AS skipped;
`,
	},
	{
		name: "rs_stock_level",
		params: `  @w_id int,
  @d_id int,
  @threshold int`,
		// Stock-Level needs only read committed (clause 2.8.2.3); the
		// setting reverts when the procedure returns.
		decls: `  DECLARE @next_o_id int, @low_stock int;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
`,
		body: `    SELECT @next_o_id = d_next_o_id FROM dbo.district WHERE d_w_id = @w_id AND d_id = @d_id;
    SELECT @low_stock = COUNT(DISTINCT s.s_i_id)
      FROM dbo.order_line AS ol JOIN dbo.stock AS s ON s.s_i_id = ol.ol_i_id AND s.s_w_id = ol.ol_w_id
      WHERE ol.ol_w_id = @w_id AND ol.ol_d_id = @d_id AND ol.ol_o_id >= @next_o_id - 20 AND ol.ol_o_id < @next_o_id
        AND s.s_quantity < @threshold;
`,
		result: `  SELECT @low_stock AS low_stock;
`,
	},
}

// bcPrefix is the text a Payment prepends to a bad-credit customer's C_DATA:
// "c_id c_d_id c_w_id d_id w_id amount | " (amount with two decimals, as
// CAST of numeric(6,2) writes it). d, w and amount are T-SQL expressions.
func bcPrefix(d, w, amount string) string {
	return fmt.Sprintf("CAST(c_id AS varchar(10)) + ' ' + CAST(c_d_id AS varchar(10)) + ' ' + CAST(c_w_id AS varchar(10))"+
		" + ' ' + CAST(%s AS varchar(10)) + ' ' + CAST(%s AS varchar(10)) + ' ' + CAST(%s AS varchar(10)) + ' | '", d, w, amount)
}

// procedureStatements are what InstallProcedures runs, in order: drop the
// procedures and the table type, create the type, create each procedure
// (CREATE PROCEDURE must be alone in its batch).
func procedureStatements() []string {
	var out []string
	for _, p := range procedures {
		out = append(out, dropProcedure(p.name))
	}
	out = append(out, dropType(orderLineType), sqlCreateOrderLineType)
	for _, p := range procedures {
		out = append(out, p.sql())
	}
	return out
}

// InstallProcedures implements engine.DB.
func (db *DB) InstallProcedures(ctx context.Context) error {
	if err := execAll(ctx, db.pool, procedureStatements()); err != nil {
		return fmt.Errorf("install procedures: %w", err)
	}
	return nil
}
