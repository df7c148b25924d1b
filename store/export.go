package store

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CSV file names written by ExportCSV.
const (
	StepsCSV        = "steps.csv"
	TransactionsCSV = "transactions.csv"
	TimeseriesCSV   = "timeseries.csv"
	HostSamplesCSV  = "host_samples.csv"
	// StatementsCSV is written for a run of pgbench scripts only: each
	// step's latency per statement (Step.Statements).
	StatementsCSV = "statements.csv"
)

// CSVFile is a further file of a CSV export, of documents the store holds
// without reading them (a step's wait profile): its name, its columns
// after the step's key columns (run_id, label, step_id, repeat, index,
// users), and a step's rows of those columns.
type CSVFile struct {
	Name    string
	Columns []string
	Rows    func(st *Step) [][]string
}

// CSVFloat is a number as the CSV export writes it (non-finite as 0).
func CSVFloat(f float64) string { return cf(f) }

// ExportDir creates the directory an export writes into ("" is the
// current directory) and returns it.
func ExportDir(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("export directory: %w", err)
	}
	return dir, nil
}

// ExportCSV writes a run (id, or label or unique id prefix as Resolve
// takes it) as CSV files (steps.csv, transactions.csv, timeseries.csv,
// host_samples.csv, statements.csv for a run of pgbench scripts, then
// the files of more: header row, one row per
// record, RFC 4180) into dir, created if missing ("" is the current
// directory). It returns the paths written. Each file is written by
// WriteFile, so none is ever left half-written.
func ExportCSV(ctx context.Context, st *Store, id string, dir string, more ...CSVFile) ([]string, error) {
	id, err := st.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	r, steps, err := st.LoadRun(ctx, id)
	if err != nil {
		return nil, err
	}
	dir, err = ExportDir(dir)
	if err != nil {
		return nil, err
	}
	files := []csvFill{
		{StepsCSV, func(w *csv.Writer) error { return stepsCSV(w, r, steps) }},
		{TransactionsCSV, func(w *csv.Writer) error { return transactionsCSV(w, r, steps) }},
		{TimeseriesCSV, func(w *csv.Writer) error { return timeseriesCSV(w, r, steps) }},
		{HostSamplesCSV, func(w *csv.Writer) error { return hostSamplesCSV(w, r, steps) }},
	}
	if slices.ContainsFunc(steps, func(st Step) bool { return len(st.Statements) > 0 }) {
		files = append(files, csvFill{StatementsCSV, func(w *csv.Writer) error { return statementsCSV(w, r, steps) }})
	}
	for _, f := range more {
		files = append(files, csvFill{f.Name, func(w *csv.Writer) error { return moreCSV(w, r, steps, f) }})
	}
	var out []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		err := WriteFile(p, func(w io.Writer) error {
			cw := csv.NewWriter(w)
			cw.UseCRLF = true // RFC 4180
			if err := f.fill(cw); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		})
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, nil
}

// WriteFile writes an export file at path through a temporary file
// renamed at the end, so none is ever left half-written.
func WriteFile(path string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	tmp := f.Name()
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("export %s: %w", path, err)
	}
	return nil
}

// CSV cell formats: times in UTC as "2006-01-02 15:04:05.000" (what
// spreadsheets parse), floats in shortest decimal form.
const csvTime = "2006-01-02 15:04:05.000"

func ct(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(csvTime)
}

func cf(f float64) string { return strconv.FormatFloat(fin(f), 'f', -1, 64) }
func ci(i int64) string   { return strconv.FormatInt(i, 10) }
func cu(u uint64) string  { return strconv.FormatUint(u, 10) }
func cb(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// stepKey is the leading columns of every per-step row.
var stepKeyHeader = []string{"run_id", "label", "step_id", "repeat", "index", "users"}

func stepKey(r *Run, st *Step) []string {
	return []string{r.ID, r.Label, ci(st.ID), strconv.Itoa(st.Repeat), strconv.Itoa(st.Index), strconv.Itoa(st.Users)}
}

// csvFill is a file of the CSV export and what fills it.
type csvFill struct {
	name string
	fill func(*csv.Writer) error
}

// moreCSV writes f's rows of every step after the step's key.
func moreCSV(w *csv.Writer, r *Run, steps []Step, f CSVFile) error {
	if err := w.Write(append(append([]string{}, stepKeyHeader...), f.Columns...)); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		for _, row := range f.Rows(st) {
			if err := w.Write(append(stepKey(r, st), row...)); err != nil {
				return err
			}
		}
	}
	return nil
}

// stepRunHeader are the run's columns every row of steps.csv repeats,
// after the step's key.
var stepRunHeader = []string{"engine", "engine_version", "mode", "warehouses"}

// stepCSVFields are the columns of a step in steps.csv after the key and
// the run's: its stored figures (stepFigureFields), with the seconds
// measured after the measured interval's end.
func stepCSVFields(st *Step) []field {
	fs := stepFigureFields(st)
	m := st.Measured().Seconds()
	i := slices.IndexFunc(fs, func(f field) bool { return f.p == any(&st.MeasureEnd) })
	return slices.Insert(fs, i+1, field{"measured_s", &m})
}

// txnCSVFields are a transaction type's columns in transactions.csv: its
// stored ones but the histogram.
func txnCSVFields(t *TxnSummary) []field {
	return slices.DeleteFunc(txnFields(t), func(f field) bool { return f.p == any(&t.Hist) })
}

// csvHeadings are the CSV headings of stored fields: their column names,
// a time's "_utc" for its "_ns" (it is written as UTC text) and the
// transaction type's "type".
func csvHeadings(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
		switch {
		case f.name == "txn_type":
			out[i] = "type"
		case strings.HasSuffix(f.name, "_ns"):
			out[i] = strings.TrimSuffix(f.name, "_ns") + "_utc"
		}
	}
	return out
}

// csvCells are the CSV cells of stored fields, in order.
func csvCells(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		switch v := f.p.(type) {
		case *float64:
			out[i] = cf(*v)
		case *uint64:
			out[i] = cu(*v)
		case *int64:
			out[i] = ci(*v)
		case *int:
			out[i] = strconv.Itoa(*v)
		case *bool:
			out[i] = cb(*v)
		case *time.Time:
			out[i] = ct(*v)
		case *string:
			out[i] = *v
		default:
			panic(fmt.Sprintf("store: no CSV cell for %s (%T)", f.name, f.p))
		}
	}
	return out
}

func stepsCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append(append([]string{}, stepKeyHeader...), stepRunHeader...), csvHeadings(stepCSVFields(&Step{}))...)
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		rec := append(stepKey(r, st), r.Engine, r.EngineVersion, r.Mode, strconv.Itoa(r.Warehouses))
		if err := w.Write(append(rec, csvCells(stepCSVFields(st))...)); err != nil {
			return err
		}
	}
	return nil
}

func transactionsCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append([]string{}, stepKeyHeader...), csvHeadings(txnCSVFields(&TxnSummary{}))...)
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		for j := range st.Txn {
			if err := w.Write(append(stepKey(r, st), csvCells(txnCSVFields(&st.Txn[j]))...)); err != nil {
				return err
			}
		}
	}
	return nil
}

// statementsCSV writes each step's statements, without their histograms.
func statementsCSV(w *csv.Writer, r *Run, steps []Step) error {
	fields := func(x *StatementSummary) []field {
		return slices.DeleteFunc(statementFields(x), func(f field) bool { return f.p == any(&x.Hist) })
	}
	if err := w.Write(append(append([]string{}, stepKeyHeader...), csvHeadings(fields(&StatementSummary{}))...)); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		for j := range st.Statements {
			if err := w.Write(append(stepKey(r, st), csvCells(fields(&st.Statements[j]))...)); err != nil {
				return err
			}
		}
	}
	return nil
}

func timeseriesCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append([]string{}, stepKeyHeader...), "offset_s", "time_utc", "measured", "txn", "new_orders", "wal_bytes")
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		for _, s := range st.Seconds {
			at := st.Start.Add(time.Duration(s.Offset) * time.Second)
			measured := !st.Start.IsZero() && !at.Before(st.MeasureStart) && at.Before(st.MeasureEnd)
			rec := append(stepKey(r, st), strconv.Itoa(s.Offset), ct(at), cb(measured), ci(s.Txn), ci(s.NewOrders), ci(s.WALBytes))
			if err := w.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

func hostSamplesCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append([]string{}, stepKeyHeader...), "time_utc", "offset_s")
	header = append(append(header, names(hostFields((&HostSample{}).Columns()))...), "disks")
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		for _, h := range st.Samples {
			off := ""
			if !st.Start.IsZero() && !h.At.IsZero() {
				off = cf(h.At.Sub(st.Start).Seconds())
			}
			rec := append(stepKey(r, st), ct(h.At), off)
			rec = append(append(rec, csvCells(hostFields(h.Columns()))...), h.Disks)
			if err := w.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}
