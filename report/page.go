package report

import (
	"fmt"
	"html"
	"html/template"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/history"
)

// Page is where a section writes its body. It knows the runs of the report
// with their labels and colours (index i of Runs, Labels and Colors is the
// same run).
type Page struct {
	// Runs are the runs of the report.
	Runs []RunData
	// Labels are the runs' names (see Labels).
	Labels []string
	// Colors are the runs' colours, the same in every chart.
	Colors []string
	// Cost is the report's evaluated cost model (nil without one).
	Cost *cost.Result
	// Sweep is the report's sweep (nil without one).
	Sweep *Sweep
	Fit   *Fit
	// History is the report's history of a figure (nil without one).
	History *history.History

	stats  []*RunStats
	anchor string
	buf    strings.Builder
	charts int
	tables int
}

// Stats returns run i's steps aggregated across repeats.
func (p *Page) Stats(i int) *RunStats {
	if p.stats == nil {
		p.stats = make([]*RunStats, len(p.Runs))
	}
	if p.stats[i] == nil {
		p.stats[i] = NewRunStats(p.Runs[i].Steps)
	}
	return p.stats[i]
}

// AllStats returns the aggregates of every run, in run order.
func (p *Page) AllStats() []*RunStats {
	out := make([]*RunStats, len(p.Runs))
	for i := range p.Runs {
		out[i] = p.Stats(i)
	}
	return out
}

// HTML writes trusted HTML.
func (p *Page) HTML(h template.HTML) { p.buf.WriteString(string(h)) }

// Heading writes a sub-heading.
func (p *Page) Heading(format string, args ...any) {
	p.buf.WriteString("<h3>" + html.EscapeString(fmt.Sprintf(format, args...)) + "</h3>\n")
}

// Text writes a paragraph of plain text.
func (p *Page) Text(text string) { p.buf.WriteString("<p>" + html.EscapeString(text) + "</p>\n") }

// Textf writes a paragraph of formatted plain text.
func (p *Page) Textf(format string, args ...any) { p.Text(fmt.Sprintf(format, args...)) }

// Note writes a muted paragraph of plain text (an explanation, or why
// there is nothing to show).
func (p *Page) Note(text string) {
	p.buf.WriteString(`<p class="note">` + html.EscapeString(text) + "</p>\n")
}

// Notef writes a muted paragraph of formatted plain text.
func (p *Page) Notef(format string, args ...any) { p.Note(fmt.Sprintf(format, args...)) }

// Cell is one table cell.
type Cell struct {
	// Text is the cell's text.
	Text string
	// Class is a CSS class: "num" (right-aligned figure), "warn", "bad",
	// "muted", "key", "wrap"; several separated by spaces.
	Class string
	// Title is shown when the pointer rests on the cell.
	Title string
}

// Num returns a right-aligned figure cell.
func Num(s string) Cell { return Cell{Text: s, Class: "num"} }

// Txt returns a text cell.
func Txt(s string) Cell { return Cell{Text: s} }

// Row is one table row.
type Row struct {
	// Cells are the row's cells, one per column.
	Cells []Cell
	// Class is the row's CSS class ("diff" highlights it).
	Class string
}

// Table is a table of a section.
type Table struct {
	// Caption is shown above the table.
	Caption string
	// Head holds the column headings.
	Head []string
	// Rows holds the rows.
	Rows []Row
	// DiffToggle adds a "show only differences" check box; rows whose Class
	// is not "diff" are hidden when it is ticked.
	DiffToggle bool
}

// Table writes a table.
func (p *Page) Table(t Table) {
	p.tables++
	id := fmt.Sprintf("t-%s-%d", p.anchor, p.tables)
	b := &p.buf
	if t.DiffToggle {
		fmt.Fprintf(b, `<label class="toggle"><input type="checkbox" data-only-diff="%s"> show only the rows that differ</label>`+"\n", id)
	}
	fmt.Fprintf(b, `<div class="scroll"><table id="%s">`, id)
	if t.Caption != "" {
		b.WriteString("<caption>" + html.EscapeString(t.Caption) + "</caption>")
	}
	if len(t.Head) > 0 {
		b.WriteString("<thead><tr>")
		for _, h := range t.Head {
			b.WriteString("<th>" + html.EscapeString(h) + "</th>")
		}
		b.WriteString("</tr></thead>")
	}
	b.WriteString("<tbody>\n")
	for _, r := range t.Rows {
		cls := r.Class
		if t.DiffToggle && cls != "diff" {
			cls = strings.TrimSpace(cls + " same")
		}
		if cls != "" {
			fmt.Fprintf(b, `<tr class="%s">`, html.EscapeString(cls))
		} else {
			b.WriteString("<tr>")
		}
		for _, c := range r.Cells {
			b.WriteString("<td")
			if c.Class != "" {
				fmt.Fprintf(b, ` class="%s"`, html.EscapeString(c.Class))
			}
			if c.Title != "" {
				fmt.Fprintf(b, ` title="%s"`, html.EscapeString(c.Title))
			}
			b.WriteString(">" + html.EscapeString(c.Text) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table></div>\n")
}

// Chart is a go-echarts chart (charts.NewBar, charts.NewLine ...).
type Chart interface {
	RenderSnippet() render.ChartSnippet
}

// rectChart is implemented by the rectangular go-echarts charts (bar, line,
// scatter ...), whose options Page adjusts.
type rectChart interface {
	SetGlobalOptions(options ...charts.GlobalOpts) *charts.RectChart
}

// Charts writes charts side by side (as many per row as fit, at least
// 560 px each). Page gives rectangular charts a stable id, the full width
// of their cell and no remote JavaScript: the page embeds echarts itself.
func (p *Page) Charts(cs ...Chart) {
	p.buf.WriteString(`<div class="charts">` + "\n")
	for _, c := range cs {
		p.charts++
		if rc, ok := c.(rectChart); ok {
			id := fmt.Sprintf("chart_%s_%d", strings.ReplaceAll(p.anchor, "-", "_"), p.charts)
			rc.SetGlobalOptions(func(bc *charts.BaseConfiguration) {
				bc.ChartID = id
				bc.Initialization.Width = "100%"
				if bc.Initialization.Height == "" || bc.Initialization.Height == "500px" {
					bc.Initialization.Height = "400px"
				}
				bc.ClearPresetJSAssets()
				bc.ClearPresetCSSAssets()
			})
		}
		s := c.RenderSnippet()
		p.buf.WriteString(`<div class="chart">` + s.Element + safeScript(s.Script) + "</div>\n")
	}
	p.buf.WriteString("</div>\n")
}

// safeScript keeps a chart's script inside its <script> element whatever
// its strings hold (go-echarts writes the option JSON without HTML
// escaping): "</" and "<!--" inside it are written "<\/" and "<\!--",
// which mean the same in JavaScript.
func safeScript(s string) string {
	const open, end = `<script type="text/javascript">`, "</script>"
	body, ok := strings.CutPrefix(strings.TrimSpace(s), open)
	if !ok {
		return s
	}
	body, ok = strings.CutSuffix(body, end)
	if !ok {
		return s
	}
	body = strings.ReplaceAll(body, "</", `<\/`)
	body = strings.ReplaceAll(body, "<!--", `<\!--`)
	return open + body + end
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
