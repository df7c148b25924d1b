package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rightsize/rightsize/store"
)

// Export formats.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// DocumentFormat names the JSON document Export writes.
const DocumentFormat = "rightsize-run"

// Document is the JSON export of a run: the run, every step with all its
// raw children, and the aggregates across repeats.
type Document struct {
	// Format is DocumentFormat.
	Format string `json:"format"`
	// SchemaVersion is the store schema version that wrote it.
	SchemaVersion int             `json:"schema_version"`
	Run           *store.Run      `json:"run"`        // the run
	Steps         []store.Step    `json:"steps"`      // every step with its children, by repeat then index
	Aggregates    []StepAggregate `json:"aggregates"` // Aggregate(Steps)
	// Figures are RunFigures(Aggregates): the peak TPM and NOPM, the
	// average over all steps and the peak driver CPU every view shows.
	Figures Headline `json:"figures"`
	// Workers are the driver processes of a multi-worker run (none for a
	// single-process run), as results show lists them.
	Workers []store.Worker `json:"workers,omitempty"`
	// Workload is the run's workload when it is not TPC-C (Workload):
	// its scripts, TPS per script and latencies per statement.
	Workload *WorkloadSummary `json:"workload,omitempty"`
}

// LoadDocument loads a run (its id) with its steps and workers as the
// JSON document.
func LoadDocument(ctx context.Context, st *store.Store, id string) (Document, error) {
	r, steps, err := st.LoadRun(ctx, id)
	if err != nil {
		return Document{}, err
	}
	doc := NewDocument(r, steps)
	if doc.Workers, err = st.Workers(ctx, r.ID); err != nil {
		return Document{}, err
	}
	return doc, nil
}

// NewDocument builds the JSON document of a loaded run.
func NewDocument(r *store.Run, steps []store.Step) Document {
	if steps == nil {
		steps = []store.Step{}
	}
	aggs := Aggregate(steps)
	return Document{Format: DocumentFormat, SchemaVersion: store.SchemaVersion, Run: r, Steps: steps, Aggregates: aggs, Figures: RunFigures(aggs),
		Workload: Workload(r, steps)}
}

// WriteJSON writes the run's Document, indented, to w.
func WriteJSON(w io.Writer, r *store.Run, steps []store.Step) error {
	return WriteDocument(w, NewDocument(r, steps))
}

// WriteDocument writes doc, indented, to w.
func WriteDocument(w io.Writer, doc Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// Export writes a run (id, or label or unique id prefix as store's Resolve
// takes it) in format FormatCSV (store.ExportCSV and WaitsCSV) or FormatJSON (<run
// id>.json, a Document) into dir, created if missing ("" is the current
// directory). It returns the paths written, none ever half-written.
func Export(ctx context.Context, st *store.Store, id string, format string, dir string) ([]string, error) {
	switch format {
	case FormatCSV:
		return store.ExportCSV(ctx, st, id, dir, waitsFile)
	case FormatJSON:
	default:
		return nil, fmt.Errorf("unknown export format %q (want %s or %s)", format, FormatCSV, FormatJSON)
	}
	id, err := st.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	doc, err := LoadDocument(ctx, st, id)
	if err != nil {
		return nil, err
	}
	if dir, err = store.ExportDir(dir); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, doc.Run.ID+".json")
	if err := store.WriteFile(p, func(w io.Writer) error { return WriteDocument(w, doc) }); err != nil {
		return nil, err
	}
	return []string{p}, nil
}
