package store

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll() // also checks every row has the header's field count
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func TestExportCSV(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r, steps := storeTestRun(t, s, "csv, \"quoted\" label", t0)
		storeTestRun(t, s, "another", t0.Add(-1)) // must not leak into the export
		dir := filepath.Join(t.TempDir(), "out")
		files, err := ExportCSV(ctx, s, r.ID, dir)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{StepsCSV: len(steps)}
		for _, st := range steps {
			want[TransactionsCSV] += len(st.Txn)
			want[TimeseriesCSV] += len(st.Seconds)
			want[HostSamplesCSV] += len(st.Samples)
		}
		if len(files) != 4 { // the raw tables; analysis.Export adds waits.csv
			t.Fatalf("files %v", files)
		}
		for _, p := range files {
			recs := readCSV(t, p)
			name := filepath.Base(p)
			if len(recs)-1 != want[name] {
				t.Errorf("%s: %d data rows, want %d", name, len(recs)-1, want[name])
			}
			col := map[string]int{}
			for i, h := range recs[0] {
				col[h] = i
			}
			for _, rec := range recs[1:] {
				if rec[col["run_id"]] != r.ID || rec[col["label"]] != r.Label {
					t.Fatalf("%s: row of run %q label %q", name, rec[col["run_id"]], rec[col["label"]])
				}
			}
			raw, _ := os.ReadFile(p)
			if !strings.Contains(string(raw), "\r\n") {
				t.Errorf("%s: lines do not end in CRLF (RFC 4180)", name)
			}
			switch name {
			case StepsCSV:
				row := recs[1]
				if v, _ := strconv.ParseFloat(row[col["tpm"]], 64); v != steps[0].TPM {
					t.Errorf("steps.csv tpm %v, want %v", row[col["tpm"]], steps[0].TPM)
				}
				if row[col["mem_cached_bytes"]] != strconv.FormatUint(steps[0].Host.MemCachedBytes, 10) ||
					row[col["start_utc"]] != "2025-03-14 09:43:33.589" || row[col["measured_s"]] != "60" {
					t.Errorf("steps.csv row %v", row)
				}
			case TransactionsCSV:
				if recs[4][col["first_error"]] != steps[0].Txn[3].FirstError {
					t.Errorf("first_error %q", recs[4][col["first_error"]])
				}
			case TimeseriesCSV:
				if recs[1][col["measured"]] != "0" || recs[11][col["measured"]] != "1" || recs[11][col["offset_s"]] != "10" {
					t.Errorf("timeseries measured flags: %v / %v", recs[1], recs[11])
				}
			case HostSamplesCSV:
				if !strings.HasPrefix(recs[1][col["disks"]], `[{"name":"sda"`) || recs[2][col["offset_s"]] != "1" {
					t.Errorf("host_samples row %v", recs[1])
				}
			}
		}
		// Exporting by label works too, and a second export overwrites.
		if _, err := ExportCSV(ctx, s, r.Label, dir); err != nil {
			t.Errorf("export by label: %v", err)
		}
		left, _ := filepath.Glob(filepath.Join(dir, ".*"))
		if len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
	})
}

// TestStepsJSON: steps survive a JSON round trip (the run document's
// steps), histograms as the standard base64 text.
func TestStepsJSON(t *testing.T) {
	s := openAt(t, sqliteLocation(t))
	_, steps := storeTestRun(t, s, "json", t0)
	b, err := json.MarshalIndent(steps, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var back []Step
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, steps) {
		t.Error("steps differ after a JSON round trip")
	}
	// Histograms are the standard base64 text, not base64 of it.
	if !strings.Contains(string(b), `"hist": "HISTF`) {
		t.Error("histograms not written as HdrHistogram base64 text")
	}
}

func TestExportErrors(t *testing.T) {
	s := openAt(t, sqliteLocation(t))
	ctx := context.Background()
	r, _ := storeTestRun(t, s, "x", t0)
	if _, err := ExportCSV(ctx, s, "nope", t.TempDir()); err == nil {
		t.Error("unknown run exported")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := ExportCSV(ctx, s, r.ID, filepath.Join(file, "sub")); err == nil {
		t.Error("export under a file succeeded")
	}
}
