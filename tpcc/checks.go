package tpcc

import (
	"context"
	"fmt"
)

// Check is one consistency condition of clause 3.3.2. SQL returns the number
// of violations (0 when the condition holds), in portable SQL that engines
// may override for their dialect.
type Check struct {
	ID        string // "3.3.2.1"
	Name      string
	Clause    string // what the clause requires, in our words
	SQL       string
	AfterLoad bool // holds only right after build (3.3.2.11)
	Expensive bool // scans whole tables (ORDER-LINE, CUSTOMER, HISTORY); check --quick skips it
}

// deliveredPerCustomer is the sum of OL_AMOUNT of every delivered order
// line per customer, and paidPerCustomer the sum of H_AMOUNT per customer
// (conditions 3.3.2.10 and 3.3.2.12).
const (
	deliveredPerCustomer = `(SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS c, sum(ol.ol_amount) AS s
  FROM orders o JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
  WHERE ol.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) del`
	paidPerCustomer = `(SELECT h_c_w_id AS w, h_c_d_id AS d, h_c_id AS c, sum(h_amount) AS s
  FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) pay`
)

// Checks lists the twelve conditions of clause 3.3.2, in clause order.
var Checks = []Check{
	{ID: "3.3.2.1", Name: "W_YTD = sum(D_YTD)",
		Clause: "Entries in the WAREHOUSE and DISTRICT tables must satisfy W_YTD = sum(D_YTD) for each warehouse.",
		SQL: `SELECT count(*) FROM warehouse w
WHERE abs(w.w_ytd - (SELECT sum(d.d_ytd) FROM district d WHERE d.d_w_id = w.w_id)) > 0.005`},
	{ID: "3.3.2.2", Name: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
		Clause: "For each district, D_NEXT_O_ID - 1 equals the largest O_ID of ORDER and the largest NO_O_ID of NEW-ORDER (the latter only where the district has NEW-ORDER rows).",
		SQL: `SELECT count(*) FROM district d
WHERE d.d_next_o_id - 1 <> (SELECT max(o.o_id) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id)
   OR d.d_next_o_id - 1 <> COALESCE((SELECT max(n.no_o_id) FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id), d.d_next_o_id - 1)`},
	{ID: "3.3.2.3", Name: "NEW-ORDER rows are contiguous per district",
		Clause: "For each district, max(NO_O_ID) - min(NO_O_ID) + 1 equals the number of NEW-ORDER rows of that district.",
		SQL: `SELECT count(*) FROM (
  SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) t
WHERE span <> n`},
	{ID: "3.3.2.4", Name: "sum(O_OL_CNT) = count(ORDER-LINE) per district",
		Clause: "For each district, the sum of O_OL_CNT over its orders equals the number of its ORDER-LINE rows.",
		SQL: `SELECT count(*) FROM district d
WHERE COALESCE((SELECT sum(o.o_ol_cnt) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id), 0)
   <> (SELECT count(*) FROM order_line ol WHERE ol.ol_w_id = d.d_w_id AND ol.ol_d_id = d.d_id)`},
	{ID: "3.3.2.5", Name: "O_CARRIER_ID is NULL iff a NEW-ORDER row exists",
		Clause: "For each ORDER row, O_CARRIER_ID is NULL if and only if a matching NEW-ORDER row exists.",
		SQL: `SELECT count(*) FROM orders o
WHERE (o.o_carrier_id IS NULL) <> EXISTS (SELECT 1 FROM new_order n WHERE n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id)`},
	{ID: "3.3.2.6", Name: "O_OL_CNT = count(ORDER-LINE) per order", Expensive: true,
		Clause: "For each ORDER row, O_OL_CNT equals the number of ORDER-LINE rows of that order.",
		SQL: `SELECT count(*) FROM orders o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE COALESCE(l.n, 0) <> o.o_ol_cnt`},
	{ID: "3.3.2.7", Name: "OL_DELIVERY_D is NULL iff O_CARRIER_ID is NULL", Expensive: true,
		Clause: "For each ORDER-LINE row, OL_DELIVERY_D is NULL if and only if the O_CARRIER_ID of its order is NULL.",
		SQL: `SELECT count(*) FROM orders o
JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
WHERE CASE WHEN o.o_carrier_id IS NULL THEN 1 ELSE 0 END <> CASE WHEN ol.ol_delivery_d IS NULL THEN 1 ELSE 0 END`},
	{ID: "3.3.2.8", Name: "W_YTD = sum(H_AMOUNT)",
		Clause: "For each warehouse, W_YTD equals the sum of H_AMOUNT of the HISTORY rows with H_W_ID = W_ID.",
		SQL: `SELECT count(*) FROM warehouse w
WHERE abs(w.w_ytd - (SELECT sum(h.h_amount) FROM history h WHERE h.h_w_id = w.w_id)) > 0.005`},
	{ID: "3.3.2.9", Name: "D_YTD = sum(H_AMOUNT) per district",
		Clause: "For each district, D_YTD equals the sum of H_AMOUNT of the HISTORY rows of that district (H_W_ID, H_D_ID).",
		SQL: `SELECT count(*) FROM district d
WHERE abs(d.d_ytd - COALESCE((SELECT sum(h.h_amount) FROM history h WHERE h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id), 0)) > 0.005`},
	{ID: "3.3.2.10", Name: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", Expensive: true,
		Clause: "For each customer, C_BALANCE equals the sum of OL_AMOUNT of the customer's delivered order lines (OL_DELIVERY_D not NULL) minus the sum of H_AMOUNT of the customer's HISTORY rows.",
		SQL: `SELECT count(*) FROM customer cu
LEFT JOIN ` + deliveredPerCustomer + ` ON del.w = cu.c_w_id AND del.d = cu.c_d_id AND del.c = cu.c_id
LEFT JOIN ` + paidPerCustomer + ` ON pay.w = cu.c_w_id AND pay.d = cu.c_d_id AND pay.c = cu.c_id
WHERE abs(cu.c_balance - (COALESCE(del.s, 0) - COALESCE(pay.s, 0))) > 0.005`},
	{ID: "3.3.2.11", Name: "count(ORDER) - count(NEW-ORDER) = 2100 per district (right after build only)", AfterLoad: true,
		Clause: "For each district, the number of ORDER rows minus the number of NEW-ORDER rows equals 2100 (holds until the first transaction runs).",
		SQL: `SELECT count(*) FROM district d
WHERE (SELECT count(*) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id)
    - (SELECT count(*) FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id) <> 2100`},
	{ID: "3.3.2.12", Name: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", Expensive: true,
		Clause: "For each customer, C_BALANCE + C_YTD_PAYMENT equals the sum of OL_AMOUNT of the customer's delivered order lines.",
		SQL: `SELECT count(*) FROM customer cu
LEFT JOIN ` + deliveredPerCustomer + ` ON del.w = cu.c_w_id AND del.d = cu.c_d_id AND del.c = cu.c_id
WHERE abs(cu.c_balance + cu.c_ytd_payment - COALESCE(del.s, 0)) > 0.005`},
}

// Querier runs a query that returns one integer; engines provide it.
type Querier interface {
	QueryInt(ctx context.Context, sql string) (int64, error)
}

// CheckResult is the outcome of one condition.
type CheckResult struct {
	Check      Check
	Violations int64
	Skipped    bool // 3.3.2.11 when the database has run transactions since build
	Quick      bool // skipped as expensive (check --quick)
}

// Passed reports whether the condition holds (or was skipped).
func (r CheckResult) Passed() bool { return r.Skipped || r.Violations == 0 }

// RunChecks evaluates every condition. sqlFor lets an engine rewrite a
// check's SQL (nil keeps the portable text). freshlyBuilt says whether no
// transaction has run since build, which 3.3.2.11 needs; quick skips the
// expensive conditions.
func RunChecks(ctx context.Context, q Querier, sqlFor func(Check) string, freshlyBuilt, quick bool) ([]CheckResult, error) {
	out := make([]CheckResult, 0, len(Checks))
	for _, c := range Checks {
		if c.AfterLoad && !freshlyBuilt || c.Expensive && quick {
			out = append(out, CheckResult{Check: c, Skipped: true, Quick: c.Expensive && quick})
			continue
		}
		sql := c.SQL
		if sqlFor != nil {
			sql = sqlFor(c)
		}
		n, err := q.QueryInt(ctx, sql)
		if err != nil {
			return out, fmt.Errorf("consistency condition %s (%s): %w", c.ID, c.Name, err)
		}
		out = append(out, CheckResult{Check: c, Violations: n})
	}
	return out, nil
}
