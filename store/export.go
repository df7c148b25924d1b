package store

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rightsize/rightsize/figures"
)

// CSV file names written by ExportCSV.
const (
	StepsCSV        = "steps.csv"
	TransactionsCSV = "transactions.csv"
	TimeseriesCSV   = "timeseries.csv"
	HostSamplesCSV  = "host_samples.csv"
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
// host_samples.csv, then the files of more: header row, one row per
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

// hostCells are the CSV cells of host figures, in their columns' order.
func hostCells(cols []figures.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		switch p := c.Ptr.(type) {
		case *float64:
			out[i] = cf(*p)
		case *uint64:
			out[i] = cu(*p)
		}
	}
	return out
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

func stepsCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append([]string{}, stepKeyHeader...),
		"engine", "engine_version", "mode", "warehouses",
		"start_utc", "measure_start_utc", "measure_end_utc", "measured_s", "partial",
		"tpm", "nopm", "tpm_per_user", "driver_cpu_us_per_txn", "server_cpu_us_per_txn", "skipped_deliveries", "reconnects")
	header = append(header, names(hostFields((&HostSummary{}).Columns()))...)
	header = append(header, names(hostFields((&figures.Procs{}).Columns()))...)
	header = append(header,
		"db_commits", "db_rollbacks", "db_blocks_read", "db_blocks_hit", "db_wal_bytes", "db_checkpoints", "db_tpm", "db_buffer_hit_pct")
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		d := &st.DB
		rec := append(stepKey(r, st), r.Engine, r.EngineVersion, r.Mode, strconv.Itoa(r.Warehouses),
			ct(st.Start), ct(st.MeasureStart), ct(st.MeasureEnd), cf(st.Measured().Seconds()), cb(st.Partial),
			cf(st.TPM), cf(st.NOPM), cf(st.TPMPerUser), cf(st.DriverCPUUsPerTxn), cf(st.ServerCPUUsPerTxn),
			ci(st.SkippedDeliveries), ci(st.Reconnects))
		rec = append(rec, hostCells(st.Host.Columns())...)
		rec = append(rec, hostCells(st.Procs.Columns())...)
		rec = append(rec,
			ci(d.Commits), ci(d.Rollbacks), ci(d.BlocksRead), ci(d.BlocksHit), ci(d.WALBytes), ci(d.Checkpoints),
			cf(d.TPM), cf(d.BufferHitPct))
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

func transactionsCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append([]string{}, stepKeyHeader...), "type", "count", "rollbacks", "retries", "errors",
		"p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms", "mean_ms", "first_error")
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		for _, t := range st.Txn {
			rec := append(stepKey(r, st), t.Type, ci(t.Count), ci(t.Rollbacks), ci(t.Retries), ci(t.Errors),
				cf(t.P50Ms), cf(t.P90Ms), cf(t.P95Ms), cf(t.P99Ms), cf(t.MaxMs), cf(t.MeanMs), t.FirstError)
			if err := w.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

func timeseriesCSV(w *csv.Writer, r *Run, steps []Step) error {
	header := append(append([]string{}, stepKeyHeader...), "offset_s", "time_utc", "measured", "txn", "new_orders")
	if err := w.Write(header); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		for _, s := range st.Seconds {
			at := st.Start.Add(time.Duration(s.Offset) * time.Second)
			measured := !st.Start.IsZero() && !at.Before(st.MeasureStart) && at.Before(st.MeasureEnd)
			rec := append(stepKey(r, st), strconv.Itoa(s.Offset), ct(at), cb(measured), ci(s.Txn), ci(s.NewOrders))
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
			rec = append(append(rec, hostCells(h.Columns())...), h.Disks)
			if err := w.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}
