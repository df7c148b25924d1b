package report

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/history"
	"github.com/rightsize/rightsize/store"
)

//go:embed assets/echarts.min.js
var echartsJS string

// EChartsVersion is the version of the embedded Apache ECharts.
const EChartsVersion = "5.6.0"

// RunData is one run with everything measured in it.
type RunData struct {
	// Run is the run's configuration and environment.
	Run store.Run
	// Steps are its measured steps, ordered by repeat then index.
	Steps []store.Step
	// Probes are probe results shown with the run (storage, backup ...);
	// sections that use them come with the probes.
	Probes []store.Probe
	// Workers are the workers of a multi-worker run (none for one process);
	// the summary shows them.
	Workers []analysis.WorkerSummary
}

// Options adjust the HTML report.
type Options struct {
	// Title is the page title (default "rightsize report", naming the fit
	// or sweep of a report of one).
	Title string
	// Generated is the time shown as the generation time (default now).
	Generated time.Time
	// Version is the rightsize version shown in the footer.
	Version string
	// Sections replaces the default sections (DefaultSections) when set.
	Sections []Section
	// Probes are probes to show besides those of the runs (RunData.Probes),
	// for instance those named on the command line. A report may have
	// probes and no run: then only the probe sections are rendered.
	Probes []store.Probe
	// Cost is an evaluated cost model: with it the report has the cost
	// section (and may have no run).
	Cost *cost.Result
	// Sweep is a configuration sweep: with it the report has the sweep
	// section.
	Sweep *Sweep
	// Fit is a right-size search: with it the report has the fit section.
	Fit *Fit
	// History is a figure over runs with its change points (rightsize
	// history --html): with it the report has the history section.
	History *history.History
}

// Section is one part of the HTML report.
type Section interface {
	// Title is the section's heading, also shown in the table of contents.
	Title() string
	// Anchor is the section's HTML id: short, lower case, unique.
	Anchor() string
	// Render writes the section's body into the page; p.Runs holds the
	// runs. A section with nothing to show for these runs says so with
	// p.Note rather than leaving the page empty.
	Render(p *Page) error
}

// DefaultSections returns the sections of a report, in page order.
func DefaultSections() []Section {
	return append([]Section(nil), registry...)
}

// Load reads runs from a store for a report: each key is a run id, label
// or unique id prefix (see store.Resolve); no key means the latest run.
func Load(ctx context.Context, st *store.Store, keys ...string) ([]RunData, error) {
	if len(keys) == 0 {
		runs, err := st.ListRuns(ctx)
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			return nil, fmt.Errorf("results store %s has no runs yet: measure one with rightsize run, or import one with rightsize import hammerdb", st.Location())
		}
		keys = []string{runs[0].ID}
	}
	out := make([]RunData, 0, len(keys))
	for _, k := range keys {
		id, err := st.Resolve(ctx, k)
		if err != nil {
			return nil, err
		}
		r, steps, err := st.LoadRun(ctx, id)
		if err != nil {
			return nil, err
		}
		workers, err := analysis.WorkerSummaries(ctx, st, id)
		if err != nil {
			return nil, err
		}
		out = append(out, RunData{Run: *r, Steps: steps, Workers: workers})
	}
	return out, nil
}

// HTML writes the report of runs as one HTML document that needs no
// network: several runs are compared side by side, each labelled by its
// Label or its target and settings. The probes of the runs and of
// opts.Probes are shown in the probe sections; with no run, only those
// sections are rendered. The report of a fit, sweep or cost model opens
// with its section (subject.go).
func HTML(w io.Writer, runs []RunData, opts Options) error {
	probes := reportProbes(runs, opts.Probes)
	if len(runs) == 0 && len(probes.probes) == 0 && opts.Cost == nil && opts.Sweep == nil && opts.Fit == nil && opts.History == nil {
		return errors.New("report: no runs, no probes and no cost model")
	}
	if opts.Title == "" {
		opts.Title = defaultTitle(opts)
	}
	if opts.Generated.IsZero() {
		opts.Generated = time.Now()
	}
	sections := opts.Sections
	if sections == nil {
		sections = DefaultSections()
	}
	sections = answerFirst(sections)
	labels := subjectLabels(Labels(runs), opts)
	colors := make([]string, len(runs))
	for i := range runs {
		colors[i] = palette[i%len(palette)]
	}
	doc := pageDoc{Title: opts.Title, Generated: opts.Generated.Format("2006-01-02 15:04:05 MST"), Version: opts.Version,
		ECharts: template.JS(echartsJS), EChartsVersion: EChartsVersion}
	for i, r := range runs {
		doc.Runs = append(doc.Runs, pageRun{Label: labels[i], Color: template.CSS(colors[i]), ID: r.Run.ID, Status: r.Run.Status,
			Started: fmtTime(r.Run.StartedAt), Source: r.Run.Source})
	}
	for i, pr := range probes.probes {
		pp := pageProbe{Label: probes.labels[i], Kind: pr.Kind, ID: pr.ID, Host: orDash(pr.Host)}
		if !pr.CreatedAt.IsZero() {
			pp.Created = fmtTime(pr.CreatedAt)
		}
		doc.Probes = append(doc.Probes, pp)
	}
	stats := make([]*RunStats, len(runs))
	seen := map[string]bool{}
	for _, s := range sections {
		a := s.Anchor()
		if a == "" || seen[a] {
			return fmt.Errorf("report: section %q has an empty or duplicate anchor %q", s.Title(), a)
		}
		seen[a] = true
		ps, isProbe := s.(probeSection)
		if os, ok := s.(optionalSection); ok {
			if !os.shown(opts) {
				continue
			}
		} else if len(runs) == 0 && (!isProbe || len(probes.probes) == 0) {
			continue // a report of probes (or of a cost model) only: the run sections have nothing to show
		}
		p := &Page{Runs: runs, Labels: labels, Colors: colors, Cost: opts.Cost, Sweep: opts.Sweep, Fit: opts.Fit, History: opts.History, stats: stats, anchor: a}
		var err error
		if isProbe {
			err = ps.renderProbes(p, probes)
		} else {
			err = s.Render(p)
		}
		if err != nil {
			return fmt.Errorf("report section %q: %w", s.Title(), err)
		}
		doc.Sections = append(doc.Sections, pageSection{Title: s.Title(), Anchor: a, Body: template.HTML(p.buf.String())})
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// palette gives each run its colour, the same in every chart.
var palette = []string{"#5470c6", "#ee6666", "#3ba272", "#fac858", "#9a60b4", "#73c0de", "#fc8452", "#ea7ccc", "#91cc75"}

type pageDoc struct {
	Title, Generated, Version string
	ECharts                   template.JS
	EChartsVersion            string
	Runs                      []pageRun
	Probes                    []pageProbe
	Sections                  []pageSection
}

type pageRun struct {
	Label, ID, Status, Started, Source string
	Color                              template.CSS
}

type pageProbe struct {
	Label, Kind, ID, Host, Created string
}

type pageSection struct {
	Title, Anchor string
	Body          template.HTML
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="rightsize {{.Version}}">
<title>{{.Title}}</title>
<style>
:root { --fg:#1f2328; --muted:#656d76; --line:#d0d7de; --bg:#ffffff; --soft:#f6f8fa; --warn:#b35900; --bad:#cf222e; --diff:#fff8c5; }
* { box-sizing: border-box; }
body { margin:0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:var(--fg); background:var(--bg); font-size:14px; line-height:1.45; }
header, main, footer { max-width: 1360px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 28px 0 8px; padding-top: 10px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
.meta, .note { color: var(--muted); }
.note { margin: 6px 0; }
ul.runs { list-style: none; padding: 0; margin: 8px 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
ul.runs li { white-space: nowrap; }
.swatch { display:inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin-right: 5px; }
nav.toc { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 16px; margin: 12px 0; }
nav.toc ol { margin: 4px 0; padding-left: 22px; columns: 2; }
nav.toc a { color: #0969da; text-decoration: none; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; vertical-align: top; }
th { background: var(--soft); text-align: left; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.warn, span.warn { color: var(--warn); font-weight: 600; }
td.bad { color: var(--bad); font-weight: 600; }
td.muted { color: var(--muted); }
tr.diff td { background: var(--diff); }
td.key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
td.wrap { min-width: 150px; max-width: 420px; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 12px; }
.chart { border: 1px solid var(--line); border-radius: 6px; padding: 4px; background: #fff; }
.container { width: 100%; }
.item { width: 100% !important; }
footer { color: var(--muted); font-size: 12px; padding: 24px 20px 40px; }
label.toggle { font-size: 13px; color: var(--muted); user-select: none; }
table.only-diff tr.same { display: none; }
@media print { nav.toc { display: none; } .chart { break-inside: avoid; } }
</style>
<script>/*! Apache ECharts {{.EChartsVersion}} | Apache License 2.0 | https://echarts.apache.org */
{{.ECharts}}</script>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<div class="meta">generated {{.Generated}} by rightsize {{.Version}} · {{with .Runs}}{{len .}} run{{if gt (len .) 1}}s compared side by side{{end}}{{else}}no run{{end}}{{with .Probes}} · {{len .}} probe{{if gt (len .) 1}}s{{end}}{{end}}</div>
{{with .Runs}}<ul class="runs">{{range .}}<li><span class="swatch" style="background: {{.Color}}"></span><b>{{.Label}}</b> <span class="meta">{{.ID}} · {{.Source}} · {{.Status}} · started {{.Started}}</span></li>{{end}}</ul>{{end}}
{{with .Probes}}<ul class="runs">{{range .}}<li><b>{{.Label}}</b> <span class="meta">{{.Kind}} probe {{.ID}} · host {{.Host}}{{with .Created}} · {{.}}{{end}}</span></li>{{end}}</ul>{{end}}
<nav class="toc"><b>Contents</b><ol>{{range .Sections}}<li><a href="#{{.Anchor}}">{{.Title}}</a></li>{{end}}</ol></nav>
</header>
<main>
{{range .Sections}}<section id="{{.Anchor}}">
<h2>{{.Title}}</h2>
{{.Body}}
</section>
{{end}}</main>
<footer>rightsize {{.Version}} · charts by Apache ECharts {{.EChartsVersion}} (embedded; this file needs no network) · every figure is computed from the raw samples in the results store</footer>
<script>
(function () {
  function all() { return Array.prototype.map.call(document.querySelectorAll('.item'), function (el) { return echarts.getInstanceByDom(el); }).filter(Boolean); }
  window.addEventListener('resize', function () { all().forEach(function (c) { c.resize(); }); });
  window.addEventListener('beforeprint', function () { all().forEach(function (c) { c.resize(); }); });
  Array.prototype.forEach.call(document.querySelectorAll('input[data-only-diff]'), function (box) {
    box.addEventListener('change', function () { document.getElementById(box.getAttribute('data-only-diff')).classList.toggle('only-diff', box.checked); });
  });
})();
</script>
</body>
</html>
`))

// fmtTime formats a time for the page (UTC), "-" for the zero time.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// Labels returns how each run is named in reports: its Label, else its
// target, engine and version; runs that would share a name are told apart
// by the settings in which they differ, else by their id.
func Labels(runs []RunData) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = baseLabel(r.Run)
	}
	groups := map[string][]int{}
	for i, l := range out {
		groups[l] = append(groups[l], i)
	}
	for l, idx := range groups {
		if len(idx) < 2 {
			continue
		}
		keys := differingKeys(runs, idx)
		for _, i := range idx {
			var parts []string
			for _, k := range keys {
				parts = append(parts, strings.TrimPrefix(strings.TrimPrefix(k, "setting."), "flag.")+"="+settingsOf(runs[i].Run)[k])
			}
			if len(parts) > 0 {
				out[i] = l + " · " + strings.Join(parts, " ")
			}
		}
	}
	// Still equal: add the id's random suffix.
	count := map[string]int{}
	for _, l := range out {
		count[l]++
	}
	for i, l := range out {
		if count[l] > 1 {
			id := runs[i].Run.ID
			out[i] = l + " #" + id[max(0, len(id)-6):]
		}
	}
	return out
}

// baseLabel is a run's Label, else "target · engine version".
func baseLabel(r store.Run) string {
	if r.Label != "" {
		return r.Label
	}
	var parts []string
	if r.Target != "" {
		parts = append(parts, r.Target)
	} else if r.Source != "" {
		parts = append(parts, r.Source)
	}
	if ev := engineVersion(r); ev != "" {
		parts = append(parts, ev)
	}
	if r.Warehouses > 0 {
		parts = append(parts, fmt.Sprintf("%d wh", r.Warehouses))
	}
	if name, _ := r.Workload(); name != "" {
		parts = append(parts, name)
	}
	if len(parts) == 0 {
		return r.ID
	}
	return strings.Join(parts, " · ")
}

// engineVersion shortens "PostgreSQL 16.4 on x86_64-pc-linux-gnu, compiled
// by ..." to "PostgreSQL 16.4", prefixed with the engine when the version
// does not name it.
func engineVersion(r store.Run) string {
	v := r.EngineVersion
	if i := strings.Index(v, " on "); i > 0 {
		v = v[:i]
	}
	if i := strings.IndexAny(v, ",("); i > 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	if r.Engine == "" {
		return v
	}
	if v == "" || !strings.Contains(strings.ToLower(v), strings.ToLower(r.Engine[:min(4, len(r.Engine))])) {
		return strings.TrimSpace(r.Engine + " " + v)
	}
	return v
}

// settingsOf flattens the settings that tell runs apart: server settings
// and command-line flags.
func settingsOf(r store.Run) map[string]string {
	m := map[string]string{}
	for k, v := range r.Env {
		if strings.HasPrefix(k, "setting.") {
			m[k] = v
		}
	}
	for k, v := range r.Flags {
		m["flag."+k] = v
	}
	if r.Mode != "" {
		m["mode"] = r.Mode
	}
	if r.Warehouses > 0 {
		m["warehouses"] = fmt.Sprint(r.Warehouses)
	}
	return m
}

// differingKeys returns up to three settings whose values differ among the
// runs idx, in name order.
func differingKeys(runs []RunData, idx []int) []string {
	all := map[string]bool{}
	sets := make([]map[string]string, len(idx))
	for j, i := range idx {
		sets[j] = settingsOf(runs[i].Run)
		for k := range sets[j] {
			all[k] = true
		}
	}
	var keys []string
	for _, k := range sortedKeys(all) {
		first := sets[0][k]
		for _, s := range sets[1:] {
			if s[k] != first {
				keys = append(keys, k)
				break
			}
		}
		if len(keys) == 3 {
			break
		}
	}
	return keys
}
