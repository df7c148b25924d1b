package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rightsize/rightsize/figures"
)

// childTables are the tables of a step's children, keyed by (step_id, seq).
var childTables = []string{"step_txn", "step_seconds", "step_windows", "host_samples", "step_waits", "step_statements"}

// field ties a column to a pointer to the Go field it holds.
type field struct {
	name string
	p    any
}

// stepFields are a step's stored columns in order: its key, then its
// figures (stepFigureFields), then the rest.
func stepFields(st *Step) []field {
	fs := []field{{"run_id", &st.RunID}, {"repeat_no", &st.Repeat}, {"step_index", &st.Index}, {"users", &st.Users}}
	fs = append(fs, stepFigureFields(st)...)
	return append(fs, []field{
		{"order_lines", &st.OrderLines}, {"remote_order_lines", &st.RemoteOrderLines}, {"remote_payments", &st.RemotePayments},
		{"validity", &st.Validity},
		{"rampup_end", &st.RampupEnd}, {"rampup_note", &st.RampupNote}, {"measure_end", &st.MeasureEndHow},
		{"precision_pct", &st.PrecisionPct}, {"tpm_ci_half", &st.TPMCIHalf}, {"nopm_ci_half", &st.NOPMCIHalf},
		{"confidence", &st.Confidence},
	}...)
}

// stepFigureFields are a step's times and figures, the columns its row of
// the CSV export has too (stepCSVFields): the step's own (package
// figures' step columns), Host's, Procs' and the server's counters.
func stepFigureFields(st *Step) []field {
	d := &st.DB
	fs := []field{
		{"start_ns", &st.Start}, {"measure_start_ns", &st.MeasureStart}, {"measure_end_ns", &st.MeasureEnd},
		{"partial", &st.Partial}, {figures.TPM.Name, &st.TPM}, {figures.NOPM.Name, &st.NOPM}, {figures.TPMPerUser.Name, &st.TPMPerUser},
		{figures.DriverCPUPerTxn.Name, &st.DriverCPUUsPerTxn}, {figures.ServerCPUPerTxn.Name, &st.ServerCPUUsPerTxn},
		{figures.SkippedDeliveries.Name, &st.SkippedDeliveries}, {figures.Reconnects.Name, &st.Reconnects},
		{figures.ScheduleLag.Name, &st.ScheduleLagMs}, {figures.ScheduleLagMax.Name, &st.ScheduleLagMaxMs},
		{figures.LateTxns.Name, &st.LateTxns}, {figures.SkippedTxns.Name, &st.SkippedTxns},
	}
	fs = append(fs, hostFields(st.Host.Columns())...)
	fs = append(fs, hostFields(st.Procs.Columns())...)
	return append(fs, []field{
		{figures.DBCommits.Name, &d.Commits}, {figures.DBRollbacks.Name, &d.Rollbacks}, {figures.DBBlocksRead.Name, &d.BlocksRead},
		{figures.DBBlocksHit.Name, &d.BlocksHit}, {figures.DBWALBytes.Name, &d.WALBytes}, {figures.DBCheckpoints.Name, &d.Checkpoints},
		{figures.DBTPM.Name, &d.TPM}, {figures.DBBufferHit.Name, &d.BufferHitPct},
	}...)
}

// txnFields are a transaction type's stored columns: its type, its
// figures (figures.Txn's columns), the mean, the first error and the
// histogram.
func txnFields(t *TxnSummary) []field {
	fs := append([]field{{"txn_type", &t.Type}}, hostFields(t.Txn.Columns())...)
	return append(fs, field{figures.TxnMean.Name, &t.MeanMs}, field{"first_error", &t.FirstError}, field{"hist", &t.Hist})
}

func secondFields(s *Second) []field {
	return []field{{"offset_s", &s.Offset}, {"txn", &s.Txn}, {"new_orders", &s.NewOrders}, {"wal_bytes", &s.WALBytes}}
}

func windowFields(w *Window) []field {
	return []field{{"offset_ns", &w.Offset}, {"txn_type", &w.Type}, {"hist", &w.Hist}}
}

func sampleFields(h *HostSample) []field {
	fs := append([]field{{"at_ns", &h.At}}, hostFields(h.Columns())...)
	return append(fs, field{"disks", &h.Disks})
}

// hostFields are the stored columns of figures (figures.Column).
func hostFields(cols []figures.Column) []field {
	fs := make([]field, len(cols))
	for i, c := range cols {
		fs[i] = field{c.Name, c.Ptr}
	}
	return fs
}

func names(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// argOf converts the value behind a field pointer for the database.
func argOf(p any) any {
	switch v := p.(type) {
	case *float64:
		return fin(*v)
	case *time.Time:
		return ns(*v)
	case *time.Duration:
		return int64(*v)
	case *uint64:
		return u64(*v)
	case *bool:
		return b2i(*v)
	case *HdrHist:
		if len(*v) == 0 {
			return nil
		}
		return []byte(*v)
	case *int:
		return int64(*v)
	case *int64:
		return *v
	case *string:
		return *v
	case **Validity:
		if *v == nil {
			return ""
		}
		b, _ := json.Marshal(*v)
		return string(b)
	}
	panic(fmt.Sprintf("store: unsupported field type %T", p))
}

// destOf returns a scan destination for a field pointer.
func destOf(p any) any {
	switch v := p.(type) {
	case *float64, *time.Time, *time.Duration, *uint64, *bool, *int, *int64:
		return numScan{v}
	case *HdrHist:
		return histScan{v}
	case **Validity:
		return validityScan{v}
	}
	return p
}

// validityScan scans the JSON of a Validity ("" or NULL is nil).
type validityScan struct{ p **Validity }

// Scan implements sql.Scanner.
func (v validityScan) Scan(src any) error {
	var b []byte
	switch s := src.(type) {
	case nil:
	case []byte:
		b = s
	case string:
		b = []byte(s)
	default:
		return fmt.Errorf("store: unexpected validity type %T", src)
	}
	*v.p = nil
	if len(b) == 0 {
		return nil
	}
	var out Validity
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("store: step validity: %w", err)
	}
	*v.p = &out
	return nil
}

func dests(fs []field, pre ...any) []any {
	out := append(make([]any, 0, len(pre)+len(fs)), pre...)
	for _, f := range fs {
		out = append(out, destOf(f.p))
	}
	return out
}

// numScan scans an INTEGER or REAL column (NULL is 0) into a number, bool,
// time (Unix ns) or duration (ns).
type numScan struct{ p any }

// Scan implements sql.Scanner.
func (n numScan) Scan(src any) error {
	var i int64
	var f float64
	switch v := src.(type) {
	case nil:
	case int64:
		i, f = v, float64(v)
	case float64:
		i, f = int64(v), v
	case []byte, string:
		return fmt.Errorf("store: number column holds text %q", fmt.Sprint(v))
	default:
		return fmt.Errorf("store: unexpected column type %T", src)
	}
	switch d := n.p.(type) {
	case *float64:
		*d = f
	case *int64:
		*d = i
	case *int:
		*d = int(i)
	case *uint64:
		if i < 0 {
			i = 0
		}
		*d = uint64(i)
	case *bool:
		*d = i != 0
	case *time.Duration:
		*d = time.Duration(i)
	case *time.Time:
		*d = fromNS(i)
	}
	return nil
}

// histScan scans a BLOB (NULL is nil), copying it.
type histScan struct{ p *HdrHist }

// Scan implements sql.Scanner.
func (h histScan) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*h.p = nil
	case []byte:
		*h.p = append(HdrHist(nil), v...)
	case string:
		*h.p = HdrHist(v)
	default:
		return fmt.Errorf("store: unexpected histogram type %T", src)
	}
	return nil
}

// testHook, when set by a test, is called inside AddStep's transaction
// after each table's rows are written.
var testHook func(ctx context.Context, table string)

func hook(ctx context.Context, table string) {
	if testHook != nil {
		testHook(ctx, table)
	}
}

// AddStep stores a step and all its children in one transaction and sets
// st.ID: either everything is stored or nothing is. The run must exist and
// have no step with the same Repeat and Index yet.
//
// A step interrupted by Ctrl-C (Partial) must still be stored: pass a
// context that is not cancelled (context.WithoutCancel(ctx)) for it.
func (s *Store) AddStep(ctx context.Context, st *Step) error {
	if st == nil {
		return errors.New("store: nil step")
	}
	if st.Repeat < 1 || st.Index < 0 {
		return fmt.Errorf("store: step repeat must be ≥ 1 and index ≥ 0 (got repeat %d, index %d)", st.Repeat, st.Index)
	}
	if err := s.addStep(ctx, st); err != nil {
		return fmt.Errorf("store step (run %s, repeat %d, index %d): %w", st.RunID, st.Repeat, st.Index, err)
	}
	return nil
}

func (s *Store) addStep(ctx context.Context, st *Step) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, s.rebind("SELECT COUNT(*) FROM runs WHERE id = ?"), st.RunID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return notFoundf("no run %s in results store %s", st.RunID, s.location)
	}
	if err := tx.QueryRowContext(ctx, s.rebind("SELECT COUNT(*) FROM steps WHERE run_id = ? AND repeat_no = ? AND step_index = ?"),
		st.RunID, st.Repeat, st.Index).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return errors.New("a step with this repeat and index is already stored")
	}
	fs := stepFields(st)
	args := make([]any, len(fs))
	for i, f := range fs {
		args[i] = argOf(f.p)
	}
	q := "INSERT INTO steps (" + strings.Join(names(fs), ", ") + ") VALUES (" + placeholders(len(fs)) + ") RETURNING id"
	var id int64
	if err := tx.QueryRowContext(ctx, s.rebind(q), args...).Scan(&id); err != nil {
		return err
	}
	hook(ctx, "steps")

	if err := insertChildren(ctx, s, tx, "step_txn", txnFields, id, st.Txn); err != nil {
		return err
	}
	if err := insertChildren(ctx, s, tx, "step_seconds", secondFields, id, st.Seconds); err != nil {
		return err
	}
	if err := insertChildren(ctx, s, tx, "step_windows", windowFields, id, st.Windows); err != nil {
		return err
	}
	if err := insertChildren(ctx, s, tx, "host_samples", sampleFields, id, st.Samples); err != nil {
		return err
	}
	if err := s.insertWaits(ctx, tx, id, st); err != nil {
		return err
	}
	if err := insertChildren(ctx, s, tx, "step_statements", statementFields, id, st.Statements); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	st.ID = id
	return nil
}

func rowArgs(a []any, stepID int64, seq int, fs []field) []any {
	a = append(a, stepID, seq)
	for _, f := range fs {
		a = append(a, argOf(f.p))
	}
	return a
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// maxParams bounds the parameters of one statement (SQLite's historical
// limit is 999).
const maxParams = 999

// insertRows inserts n child rows (step_id, seq, cols...) with multi-row
// INSERTs prepared once in the transaction.
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, table string, cols []string, n int, row func(i int, args []any) []any) error {
	if n == 0 {
		return nil
	}
	cols = append([]string{"step_id", "seq"}, cols...)
	per := max(1, min(n, maxParams/len(cols)))
	values := func(rows int) string {
		one := "(" + placeholders(len(cols)) + ")"
		return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
			strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")
	}
	stmt, err := tx.PrepareContext(ctx, s.rebind(values(per)))
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	defer stmt.Close()
	args := make([]any, 0, per*len(cols))
	for i := 0; i < n; i += per {
		rows := min(per, n-i)
		args = args[:0]
		for j := i; j < i+rows; j++ {
			args = row(j, args)
		}
		if rows == per {
			_, err = stmt.ExecContext(ctx, args...)
		} else { // the last, shorter batch
			_, err = tx.ExecContext(ctx, s.rebind(values(rows)), args...)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	hook(ctx, table)
	return nil
}

// insertChildren inserts rows, the children of step stepID in table, with
// their fields, through insertRows.
func insertChildren[T any](ctx context.Context, s *Store, tx *sql.Tx, table string, fields func(*T) []field, stepID int64, rows []T) error {
	var zero T
	return s.insertRows(ctx, tx, table, names(fields(&zero)), len(rows), func(i int, a []any) []any {
		return rowArgs(a, stepID, i, fields(&rows[i]))
	})
}

// loadSteps returns a run's steps with their children.
func (s *Store) loadSteps(ctx context.Context, runID string) ([]Step, error) {
	cols := names(stepFields(&Step{}))
	rows, err := s.db.QueryContext(ctx, s.rebind("SELECT id, "+strings.Join(cols, ", ")+
		" FROM steps WHERE run_id = ? ORDER BY repeat_no, step_index"), runID)
	if err != nil {
		return nil, err
	}
	steps, err := scanAll(rows, func(sc scanner) (Step, error) {
		var st Step
		err := sc.Scan(dests(stepFields(&st), &st.ID)...)
		return st, err
	})
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, nil
	}
	byID := make(map[int64]*Step, len(steps))
	for i := range steps {
		byID[steps[i].ID] = &steps[i]
	}
	if err := loadChildren(ctx, s, "step_txn", txnFields, runID, byID,
		func(st *Step, c TxnSummary) { st.Txn = append(st.Txn, c) }); err != nil {
		return nil, err
	}
	if err := loadChildren(ctx, s, "step_seconds", secondFields, runID, byID,
		func(st *Step, c Second) { st.Seconds = append(st.Seconds, c) }); err != nil {
		return nil, err
	}
	if err := loadChildren(ctx, s, "step_windows", windowFields, runID, byID,
		func(st *Step, c Window) { st.Windows = append(st.Windows, c) }); err != nil {
		return nil, err
	}
	if err := loadChildren(ctx, s, "host_samples", sampleFields, runID, byID,
		func(st *Step, c HostSample) { st.Samples = append(st.Samples, c) }); err != nil {
		return nil, err
	}
	if err := loadChildren(ctx, s, "step_waits", whyFields, runID, byID, (*Step).setWhy); err != nil {
		return nil, err
	}
	if err := loadChildren(ctx, s, "step_statements", statementFields, runID, byID,
		func(st *Step, c StatementSummary) { st.Statements = append(st.Statements, c) }); err != nil {
		return nil, err
	}
	return steps, nil
}

// loadChildren reads a child table for a run, in (step, seq) order, and
// hands each row to add. Rows of steps not in byID (stored after the steps
// were read) are skipped.
func loadChildren[T any](ctx context.Context, s *Store, table string, fields func(*T) []field, runID string,
	byID map[int64]*Step, add func(*Step, T)) error {
	var zero T
	cols := names(fields(&zero))
	q := "SELECT c.step_id, c." + strings.Join(cols, ", c.") + " FROM " + table + " c JOIN steps s ON s.id = c.step_id" +
		" WHERE s.run_id = ? ORDER BY c.step_id, c.seq"
	rows, err := s.db.QueryContext(ctx, s.rebind(q), runID)
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c T
		var stepID int64
		if err := rows.Scan(dests(fields(&c), &stepID)...); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
		if st := byID[stepID]; st != nil {
			add(st, c)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	return nil
}

// AddStepTxn gives a stored step that has no transaction summaries its
// summaries (an imported time profile that came after its log), in one
// transaction. It refuses a step that already has some.
func (s *Store) AddStepTxn(ctx context.Context, stepID int64, txn []TxnSummary) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, s.rebind("SELECT COUNT(*) FROM step_txn WHERE step_id = ?"), stepID).Scan(&n); err != nil {
		return fmt.Errorf("add transactions to step %d: %w", stepID, err)
	}
	if n > 0 {
		return fmt.Errorf("add transactions to step %d: it already has %d transaction summaries", stepID, n)
	}
	if err := insertChildren(ctx, s, tx, "step_txn", txnFields, stepID, txn); err != nil {
		return fmt.Errorf("add transactions to step %d: %w", stepID, err)
	}
	return tx.Commit()
}
