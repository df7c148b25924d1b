package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/store"
)

// The probe sections (storage, single-thread CPU, backup and restore) show
// the probes of a report: those given in Options.Probes and those attached
// to its runs (RunData.Probes, see AttachHostProbes). HTML hands them the
// whole set through probeSection; a report may have probes and no run, and
// then only these sections are rendered.

// probeSection is implemented by the sections about probes. HTML renders
// them with every probe of the report (Render alone sees only the probes
// attached to the runs), and renders only them when the report has no run.
type probeSection interface {
	Section
	renderProbes(p *Page, ps probeSet) error
}

// probeSet is the probes of a report with their names, in report order:
// the probes of Options.Probes as given, then those of each run that were
// not given already.
type probeSet struct {
	probes []store.Probe
	labels []string
}

// reportProbes collects the probes of a report, without repeats.
func reportProbes(runs []RunData, extra []store.Probe) probeSet {
	var ps probeSet
	seen := map[string]bool{}
	add := func(p store.Probe) {
		if p.ID != "" && seen[p.ID] {
			return
		}
		seen[p.ID] = true
		ps.probes = append(ps.probes, p)
	}
	for _, p := range extra {
		add(p)
	}
	for _, r := range runs {
		for _, p := range r.Probes {
			add(p)
		}
	}
	ps.labels = ProbeLabels(ps.probes)
	return ps
}

// ofKind returns the indexes of the probes of one kind.
func (ps probeSet) ofKind(kind string) []int {
	var out []int
	for i, p := range ps.probes {
		if p.Kind == kind {
			out = append(out, i)
		}
	}
	return out
}

// ProbeLabels returns how each probe is named in reports: its Label, else
// its host, what it measured (the storage preset, the CPU probe's engine,
// the backup method) and its date. Probes that would share a name are told
// apart by their id's random suffix.
func ProbeLabels(probes []store.Probe) []string {
	out := make([]string, len(probes))
	for i, p := range probes {
		out[i] = probeBaseLabel(p)
	}
	count := map[string]int{}
	for _, l := range out {
		count[l]++
	}
	for i, l := range out {
		if count[l] > 1 {
			id := probes[i].ID
			out[i] = l + " #" + id[max(0, len(id)-6):]
		}
	}
	return out
}

// probeBaseLabel is a probe's Label, else "host · what · date".
func probeBaseLabel(p store.Probe) string {
	if strings.TrimSpace(p.Label) != "" {
		return p.Label
	}
	var parts []string
	if p.Host != "" {
		parts = append(parts, p.Host)
	}
	var what string
	switch p.Kind {
	case store.ProbeStorage:
		var r storageResult
		if json.Unmarshal(p.Result, &r) == nil && r.Preset != "" {
			what = r.Preset
		}
		what = strings.TrimSpace("storage " + what)
	case store.ProbeCPU:
		var r result.CPU
		if json.Unmarshal(p.Result, &r) == nil {
			what = engineVersion(store.Run{Engine: r.Engine, EngineVersion: r.Version})
		}
		what = strings.TrimSpace("cpu " + what)
	case store.ProbeBackup:
		var r result.Backup
		if json.Unmarshal(p.Result, &r) == nil {
			what = r.Method
		}
		what = strings.TrimSpace("backup " + what)
	default:
		what = p.Kind
	}
	if what != "" {
		parts = append(parts, what)
	}
	if !p.CreatedAt.IsZero() {
		parts = append(parts, p.CreatedAt.UTC().Format("2006-01-02 15:04"))
	}
	if len(parts) == 0 {
		return p.ID
	}
	return strings.Join(parts, " · ")
}

// LoadProbes reads probes from a store for a report: each key is a probe
// id, a label (the latest probe with that label) or a unique id prefix
// (see store.Store.LoadProbe). The probes come in the order of the keys; a
// probe named twice comes once.
func LoadProbes(ctx context.Context, st *store.Store, keys ...string) ([]store.Probe, error) {
	var out []store.Probe
	seen := map[string]bool{}
	for _, k := range keys {
		p, err := st.LoadProbe(ctx, k)
		if err != nil {
			return nil, err
		}
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, *p)
		}
	}
	return out, nil
}

// AttachHostProbes adds to each run's Probes the latest probe of each kind
// (storage, cpu, backup) measured on the run's host: a probe whose Host is
// the run's environment's host.name, ignoring case and the domain
// ("db1" matches "DB1.example.com"). A run without host.name (an imported
// HammerDB run) gets none. This is the report's default choice of probes.
func AttachHostProbes(ctx context.Context, st *store.Store, runs []RunData) error {
	all, err := st.ListProbes(ctx, "") // newest first
	if err != nil {
		return err
	}
	for i := range runs {
		host := runs[i].Run.Env["host.name"]
		if strings.TrimSpace(host) == "" {
			continue
		}
		have := map[string]bool{}
		kinds := map[string]bool{}
		for _, p := range runs[i].Probes {
			have[p.ID] = true
			kinds[p.Kind] = true
		}
		for _, p := range all {
			if kinds[p.Kind] || !SameHost(p.Host, host) {
				continue
			}
			kinds[p.Kind] = true
			if !have[p.ID] {
				runs[i].Probes = append(runs[i].Probes, p)
			}
		}
	}
	return nil
}

// SameHost reports whether two host names name the same machine: equal
// ignoring case, or equal up to their first dot (a short name against a
// fully qualified one). IP addresses must be equal.
func SameHost(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "" || b == "" {
		return false
	}
	if strings.EqualFold(a, b) {
		return true
	}
	if net.ParseIP(a) != nil || net.ParseIP(b) != nil {
		return false
	}
	sa, _, _ := strings.Cut(a, ".")
	sb, _, _ := strings.Cut(b, ".")
	return strings.EqualFold(sa, sb)
}

// --------------------------------------------------------- stored results

// storageResult is the Result of a storage probe as rightsize probe
// storage stores it (cmd/rightsize's storageProbeResult).
type storageResult struct {
	Path   string              `json:"path"`
	Preset string              `json:"preset"`
	Engine string              `json:"engine"`
	Size   int64               `json:"size_bytes"`
	Jobs   []storage.JobResult `json:"jobs"`
}

// decodeProbe reads a probe's Result into v; the error names the probe.
func decodeProbe(p store.Probe, label string, v any) error {
	if err := json.Unmarshal(p.Result, v); err != nil {
		return fmt.Errorf("%s probe %s (%s): unreadable result: %w", p.Kind, p.ID, label, err)
	}
	return nil
}

// probeMeta is the line under a probe's heading: id, host and date.
func probeMeta(p store.Probe) string {
	parts := []string{"probe " + p.ID}
	if p.Host != "" {
		parts = append(parts, "host "+p.Host)
	}
	parts = append(parts, "measured "+fmtTime(p.CreatedAt))
	return strings.Join(parts, " · ")
}

// --------------------------------------------------------------- helpers

// wideRange is the spread of positive values above which a chart's value
// axis becomes logarithmic: a slow machine's bars stay visible next to a
// fast one's (1,870 against 98,000 IOPS).
const wideRange = 30

// isWide reports whether the positive values span more than wideRange.
func isWide(vals []float64) bool {
	lo, hi := 0.0, 0.0
	for _, v := range vals {
		if v <= 0 {
			continue
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo > 0 && hi/lo > wideRange
}

// logY makes a chart's (left) value axis logarithmic, keeping its name. The
// axis starts at the power of ten at or below the smallest positive value,
// and so do the bars (echarts grows log-axis bars from 1 otherwise, down
// from 1 for values under it).
func logY(c rectChart, name string, vals []float64) {
	lo := 0.0
	for _, v := range vals {
		if v > 0 && (lo == 0 || v < lo) {
			lo = v
		}
	}
	start := 1.0
	if lo > 0 {
		start = math.Pow(10, math.Floor(math.Log10(lo)))
	}
	c.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: name, NameLocation: "end", Type: "log", Min: start,
		SplitLine: &opts.SplitLine{Show: opts.Bool(true)}}))
	// A chart has one option patch: repeat those GroupedBars and Lines set.
	fns := []func(map[string]any){alignAxisNames, func(option map[string]any) {
		if ys, ok := option["yAxis"].([]any); ok && len(ys) > 0 {
			if y, ok := ys[0].(map[string]any); ok {
				y["startValue"] = start
			}
		}
	}}
	switch ch := c.(type) {
	case *charts.Bar:
		fns = append(fns, dashUnstable)
	case *charts.Line:
		if len(ch.MultiSeries) > 4 {
			fns = append(fns, sideLegend)
		}
	}
	c.SetGlobalOptions(withPatch(fns...))
}

// withLogNote adds "log scale" to a subtitle.
func withLogNote(sub string, log bool) string {
	if !log {
		return sub
	}
	if sub == "" {
		return "log scale"
	}
	return sub + " · log scale"
}

// lighten mixes a "#rrggbb" colour with white (f = 0: unchanged, 1: white).
func lighten(hex string, f float64) string {
	if len(hex) != 7 || hex[0] != '#' {
		return hex
	}
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	if err != nil {
		return hex
	}
	mix := func(c uint64) uint64 { return c + uint64(float64(255-c)*f+0.5) }
	r, g, b := mix(v>>16&0xff), mix(v>>8&0xff), mix(v&0xff)
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// fmtSeconds formats a duration in seconds: "265", "12.5", "0.84".
func fmtSeconds(s float64) string {
	switch {
	case s >= 100:
		return fmtInt(s)
	case s >= 10:
		return fmtFloat(s, 1)
	default:
		return fmtFloat(s, 2)
	}
}

// fmtRate formats a figure like MB/s or IOPS: no decimals from 100 up.
func fmtRate(x float64) string {
	switch {
	case x >= 100:
		return fmtInt(x)
	case x >= 10:
		return fmtFloat(x, 1)
	default:
		return fmtFloat(x, 2)
	}
}
