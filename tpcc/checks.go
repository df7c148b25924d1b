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
	SQL       string
	AfterLoad bool // holds only right after build (3.3.2.11)
}

// Checks lists the conditions rightsize verifies.
var Checks = []Check{
	{ID: "3.3.2.1", Name: "W_YTD = sum(D_YTD)", SQL: `SELECT count(*) FROM warehouse w
WHERE abs(w.w_ytd - (SELECT sum(d.d_ytd) FROM district d WHERE d.d_w_id = w.w_id)) > 0.005`},
	{ID: "3.3.2.2", Name: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", SQL: `SELECT count(*) FROM district d
WHERE d.d_next_o_id - 1 <> (SELECT max(o.o_id) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id)
   OR d.d_next_o_id - 1 <> COALESCE((SELECT max(n.no_o_id) FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id), d.d_next_o_id - 1)`},
	{ID: "3.3.2.3", Name: "NEW-ORDER rows are contiguous per district", SQL: `SELECT count(*) FROM (
  SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) t
WHERE span <> n`},
	{ID: "3.3.2.4", Name: "sum(O_OL_CNT) = count(ORDER-LINE) per district", SQL: `SELECT count(*) FROM district d
WHERE COALESCE((SELECT sum(o.o_ol_cnt) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id), 0)
   <> (SELECT count(*) FROM order_line ol WHERE ol.ol_w_id = d.d_w_id AND ol.ol_d_id = d.d_id)`},
	{ID: "3.3.2.5", Name: "O_CARRIER_ID is NULL iff a NEW-ORDER row exists", SQL: `SELECT count(*) FROM orders o
WHERE (o.o_carrier_id IS NULL) <> EXISTS (SELECT 1 FROM new_order n WHERE n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id)`},
	{ID: "3.3.2.8", Name: "W_YTD = sum(H_AMOUNT)", SQL: `SELECT count(*) FROM warehouse w
WHERE abs(w.w_ytd - (SELECT sum(h.h_amount) FROM history h WHERE h.h_w_id = w.w_id)) > 0.005`},
	{ID: "3.3.2.9", Name: "D_YTD = sum(H_AMOUNT) per district", SQL: `SELECT count(*) FROM district d
WHERE abs(d.d_ytd - COALESCE((SELECT sum(h.h_amount) FROM history h WHERE h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id), 0)) > 0.005`},
	{ID: "3.3.2.11", Name: "count(ORDER) - count(NEW-ORDER) = 2100 per district (right after build only)", AfterLoad: true, SQL: `SELECT count(*) FROM district d
WHERE (SELECT count(*) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id)
    - (SELECT count(*) FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id) <> 2100`},
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
}

// Passed reports whether the condition holds (or was skipped).
func (r CheckResult) Passed() bool { return r.Skipped || r.Violations == 0 }

// RunChecks evaluates every condition. sqlFor lets an engine rewrite a
// check's SQL (nil keeps the portable text). freshlyBuilt says whether no
// transaction has run since build, which 3.3.2.11 needs.
func RunChecks(ctx context.Context, q Querier, sqlFor func(Check) string, freshlyBuilt bool) ([]CheckResult, error) {
	out := make([]CheckResult, 0, len(Checks))
	for _, c := range Checks {
		if c.AfterLoad && !freshlyBuilt {
			out = append(out, CheckResult{Check: c, Skipped: true})
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
