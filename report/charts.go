package report

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// ChartText names a chart and its axes; units belong in the axis names.
type ChartText struct {
	Title, Subtitle string
	XName, YName    string
}

// valueFormatter shows figures in tooltips with thousands separators.
var valueFormatter = opts.FuncOpts(`function (v) { if (v === null || v === undefined || v === '-') { return '-'; } if (Array.isArray(v)) { v = v[v.length - 1]; } return Number(v).toLocaleString('en-US', {maximumFractionDigits: 2}); }`)

// The top of a rectangular chart, downwards: the title and its subtitle
// (to about 42 px), the legend in one row from legendTop, the names of the
// y axes just above the grid at gridTop. The legend is of type "scroll":
// entries that do not fit the row are paged, never wrapped over the axis
// names (TestLegendsClearOfText checks with five long labels).
const (
	legendTop = "46"
	gridTop   = "100"
)

// rectOpts are the options every rectangular chart of the report shares:
// title, legend under the title, axis names, a grid that keeps the labels
// inside, a "save as image" button, no animation (a report is read, and
// screenshots must show the final state).
func rectOpts(t ChartText, trigger string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithTitleOpts(opts.Title{Title: t.Title, Subtitle: t.Subtitle, Left: "8",
			TitleStyle: &opts.TextStyle{FontSize: 15}}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: legendTop, Left: "center"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger, ValueFormatter: valueFormatter}),
		withGrid(opts.Grid{Top: gridTop, Left: "12", Right: "28", Bottom: "36", ContainLabel: opts.Bool(true)}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "16", Top: "4", Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Title: "save as PNG"},
			DataView:    &opts.ToolBoxFeatureDataView{Show: opts.Bool(true), Title: "data", Lang: []string{"data", "close", "refresh"}},
		}}),
		charts.WithAnimation(false),
		charts.WithXAxisOpts(opts.XAxis{Name: t.XName, NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Name: t.YName, NameLocation: "end", Type: "value",
			SplitLine: &opts.SplitLine{Show: opts.Bool(true)}}),
		withPatch(alignAxisNames),
	}
}

// withGrid sets the chart's one grid (charts.WithGridOpts adds one more).
func withGrid(g opts.Grid) charts.GlobalOpts {
	return func(bc *charts.BaseConfiguration) { bc.GridList = []opts.Grid{g} }
}

// optionPatch edits a chart's final echarts option, for the settings
// go-echarts has no field for.
type optionPatch struct {
	charts.BaseConfigurationVisitor
	fns []func(option map[string]any)
}

// Visit applies the patches.
func (o optionPatch) Visit(option map[string]any) {
	for _, f := range o.fns {
		f(option)
	}
}

// withPatch adds an edit of the final option map to a chart.
func withPatch(fns ...func(option map[string]any)) charts.GlobalOpts {
	return func(bc *charts.BaseConfiguration) { bc.Accept(optionPatch{fns: fns}) }
}

// generic turns an option value into plain maps and slices.
func generic(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

// alignAxisNames keeps y axis names inside the chart: the left axis's name
// starts at the axis, the right one's ends at it.
func alignAxisNames(option map[string]any) {
	ys, ok := generic(option["yAxis"]).([]any)
	if !ok {
		return
	}
	for i, y := range ys {
		if m, ok := y.(map[string]any); ok {
			align := "left"
			if i > 0 {
				align = "right"
			}
			m["nameTextStyle"] = map[string]any{"align": align, "color": "#424a53"}
		}
	}
	option["yAxis"] = ys
}

// sideLegend puts the legend in a column on the right of the plot.
func sideLegend(option map[string]any) {
	option["legend"] = map[string]any{"show": true, "type": "scroll", "orient": "vertical", "right": 6, "top": 60, "bottom": 20,
		"itemGap": 8, "textStyle": map[string]any{"width": 150, "overflow": "truncate"}}
}

// dashUnstable draws the red border of unstable bars dashed.
func dashUnstable(option map[string]any) {
	eachDatum(option, func(dm map[string]any) {
		if is, ok := dm["itemStyle"].(map[string]any); ok && is["borderColor"] == unstableColor {
			is["borderType"] = "dashed"
		}
	})
}

// notMeasuredText labels the place of a bar a run did not measure.
const notMeasuredText = "not measured"

// rotateNotMeasured turns the "not measured" labels upright along their
// empty bar (go-echarts' Label has no rotate).
func rotateNotMeasured(option map[string]any) {
	eachDatum(option, func(dm map[string]any) {
		if l, ok := dm["label"].(map[string]any); ok && l["formatter"] == notMeasuredText {
			l["rotate"] = 90
		}
	})
}

// eachDatum calls f on every data item of every series of option (as
// generic maps, written back to option).
func eachDatum(option map[string]any, f func(dm map[string]any)) {
	series, ok := generic(option["series"]).([]any)
	if !ok {
		return
	}
	for _, s := range series {
		sm, _ := s.(map[string]any)
		data, _ := sm["data"].([]any)
		for _, d := range data {
			dm, _ := d.(map[string]any)
			f(dm)
		}
	}
	option["series"] = series
}

// unstableColor marks unstable bars.
const unstableColor = "#cf222e"

// usersCategories returns the x axis of the charts by users.
func usersCategories(users []int) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = strconv.Itoa(u)
	}
	return out
}

// BarSeries is one run's bars in a grouped bar chart by users.
type BarSeries struct {
	// Name is the series' legend entry (the run's label).
	Name string
	// Color is the bars' CSS colour.
	Color string
	// Values holds one entry per category; nil for none.
	Values []*BarValue
}

// BarValue is one bar: a mean across repeats, with its range.
type BarValue struct {
	// Mean is the bar's height; Min and Max its whisker (drawn when
	// Repeats > 1); CV the repeats' coefficient of variation.
	Mean, Min, Max, CV float64
	// Repeats is how many measurements the mean is of.
	Repeats int
	// Unstable draws the bar paler with a dashed red border and a "CV n%"
	// label above its whisker (an unstable bar has repeats, so a whisker).
	Unstable bool
	// Tooltip is shown on the bar (HTML; escape what comes from users).
	Tooltip string
}

// GroupedBars builds a grouped bar chart, one bar per series in each
// category, with min–max whiskers on bars measured more than once.
func GroupedBars(t ChartText, categories []string, series []BarSeries) *charts.Bar {
	bar := charts.NewBar()
	bar.SetGlobalOptions(rectOpts(t, "item")...)
	bar.SetGlobalOptions(withPatch(alignAxisNames, dashUnstable, rotateNotMeasured))
	bar.SetXAxis(categories)
	n := len(series)
	// A category some series measured: the others say "not measured" in
	// the place of their bar instead of leaving a gap.
	measured := make([]bool, len(categories))
	for _, s := range series {
		for ci := range categories {
			measured[ci] = measured[ci] || (ci < len(s.Values) && s.Values[ci] != nil)
		}
	}
	for si, s := range series {
		data := make([]opts.BarData, len(categories))
		var whiskers []opts.CustomData
		for ci := range categories {
			var v *BarValue
			if ci < len(s.Values) {
				v = s.Values[ci]
			}
			if v == nil && measured[ci] && n > 1 {
				data[ci] = opts.BarData{Value: 0,
					Label: &opts.Label{Show: opts.Bool(true), Position: "insideBottom", Align: "left", VerticalAlign: "middle",
						Color: "#6e7781", FontSize: 11, Formatter: notMeasuredText},
					Tooltip: &opts.Tooltip{Formatter: types.FuncStr(tooltipHTML(s.Name) + ": not measured at " + tooltipHTML(categories[ci]))}}
				continue
			}
			if v == nil {
				data[ci] = opts.BarData{Value: "-"}
				continue
			}
			d := opts.BarData{Value: round2(v.Mean)}
			if v.Tooltip != "" {
				d.Tooltip = &opts.Tooltip{Formatter: types.FuncStr(v.Tooltip)}
			}
			cv := -1.0 // no label
			if v.Unstable {
				d.ItemStyle = &opts.ItemStyle{Color: s.Color, BorderColor: unstableColor, BorderWidth: 2, Opacity: opts.Float(0.6)}
				cv = math.Round(v.CV * 100)
			}
			data[ci] = d
			if v.Repeats > 1 || v.Unstable {
				whiskers = append(whiskers, opts.CustomData{Value: []any{ci, round2(min(v.Min, v.Mean)), round2(max(v.Max, v.Mean)), cv}})
			}
		}
		bar.AddSeries(s.Name, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: s.Color}),
			charts.WithBarChartOpts(opts.BarChart{BarGap: "30%", BarCategoryGap: "20%"}))
		if len(whiskers) > 0 {
			c := charts.NewCustom()
			c.AddSeries(s.Name, whiskers,
				charts.WithCustomChartOpts(opts.CustomChart{RenderItem: opts.FuncOpts(whiskerJS(si, n))}),
				charts.WithEncodeOpts(opts.Encode{X: 0, Y: []int{1, 2}}),
				charts.WithItemStyleOpts(opts.ItemStyle{Color: s.Color}))
			bar.Overlap(c)
		}
	}
	return bar
}

// whiskerJS draws a min–max whisker over bar i of n in its category and,
// for an unstable bar (value 3, the CV in %, is not negative), the "CV n%"
// label just above the whisker's top: above the bar, clear of the x axis.
func whiskerJS(i, n int) string {
	return fmt.Sprintf(`function (params, api) {
  var lo = api.coord([api.value(0), api.value(1)]);
  var hi = api.coord([api.value(0), api.value(2)]);
  var layout = api.barLayout({barGap: '30%%', barCategoryGap: '20%%', count: %d});
  var x = lo[0] + layout[%d].offsetCenter;
  var w = Math.max(3, layout[%d].width * 0.3);
  var style = {stroke: '#24292f', lineWidth: 1.5, fill: null};
  var children = [
    {type: 'line', shape: {x1: x - w, y1: hi[1], x2: x + w, y2: hi[1]}, style: style},
    {type: 'line', shape: {x1: x, y1: hi[1], x2: x, y2: lo[1]}, style: style},
    {type: 'line', shape: {x1: x - w, y1: lo[1], x2: x + w, y2: lo[1]}, style: style}
  ];
  if (api.value(3) >= 0) {
    children.push({type: 'text', name: 'cv', x: x, y: hi[1] - 3, style: {text: 'CV ' + api.value(3) + '%%', fill: '%s',
      font: 'bold 11px sans-serif', align: 'center', verticalAlign: 'bottom', backgroundColor: 'rgba(255,255,255,0.9)', padding: [1, 2]}});
  }
  return {type: 'group', silent: true, children: children};
}`, n, i, i, unstableColor)
}

// LineSeries is one line of a line chart.
type LineSeries struct {
	// Name is the line's legend entry.
	Name string
	// Color is the line's CSS colour.
	Color string
	// Dash is "solid", "dashed" or "dotted".
	Dash string
	// Width is the line width in pixels (default 2).
	Width float32
	// Values holds one entry per category of a category axis, nil for none;
	// or Points holds [x, y] pairs for a value axis.
	Values []*float64
	Points [][2]float64
	// YAxis is the index of the y axis (0 left, 1 right).
	YAxis int
	// Symbol shows the data points.
	Symbol bool
}

// Lines builds a line chart over categories (when categories is not nil)
// or over a value x axis (series Points).
func Lines(t ChartText, categories []string, series []LineSeries) *charts.Line {
	line := charts.NewLine()
	line.SetGlobalOptions(rectOpts(t, "axis")...)
	if categories != nil {
		line.SetXAxis(categories)
		line.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: t.XName, NameLocation: "middle", NameGap: 26, Type: "category"}))
	} else {
		line.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: t.XName, NameLocation: "middle", NameGap: 26, Type: "value",
			Min: "dataMin", Max: "dataMax"}))
	}
	if len(series) > 4 { // many lines: the legend goes down the right side
		line.SetGlobalOptions(withGrid(opts.Grid{Top: "70", Left: "12", Right: "190", Bottom: "36", ContainLabel: opts.Bool(true)}),
			withPatch(alignAxisNames, sideLegend))
	}
	for _, s := range series {
		var data []opts.LineData
		if categories != nil {
			data = make([]opts.LineData, len(categories))
			for i := range categories {
				if i < len(s.Values) && s.Values[i] != nil {
					data[i] = opts.LineData{Value: round2(*s.Values[i])}
				} else {
					data[i] = opts.LineData{Value: "-"}
				}
			}
		} else {
			data = make([]opts.LineData, len(s.Points))
			for i, p := range s.Points {
				data[i] = opts.LineData{Value: []float64{round3(p[0]), round2(p[1])}}
			}
		}
		width := s.Width
		if width == 0 {
			width = 2
		}
		dash := s.Dash
		if dash == "" {
			dash = "solid"
		}
		line.AddSeries(s.Name, data,
			charts.WithLineChartOpts(opts.LineChart{YAxisIndex: s.YAxis, ShowSymbol: opts.Bool(s.Symbol), Symbol: "circle",
				SymbolSize: 6, ConnectNulls: opts.Bool(true)}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: s.Color, Width: width, Type: dash}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: s.Color}))
	}
	return line
}

// tooltipHTML escapes text for a tooltip formatter (which echarts reads as
// HTML and as a template where {a}, {b}, {c} are placeholders).
func tooltipHTML(s string) string {
	s = html.EscapeString(s)
	r := []rune{}
	for _, c := range s {
		switch c {
		case '{':
			r = append(r, []rune("&#123;")...)
		case '}':
			r = append(r, []rune("&#125;")...)
		default:
			r = append(r, c)
		}
	}
	return string(r)
}

func round2(x float64) float64 { return float64(int64(x*100+sign(x)*0.5)) / 100 }
func round3(x float64) float64 { return float64(int64(x*1000+sign(x)*0.5)) / 1000 }

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// stepMark is one step on a timeline, in minutes from the timeline's start.
type stepMark struct {
	start, measure, end float64
	label               string
}

// addTimelineDecor gives a timeline its right-hand latency axis, a zoom
// slider, shaded ramp-ups and a labelled line where each step starts.
func addTimelineDecor(c *charts.Line, marks []stepMark) {
	c.ExtendYAxis(opts.YAxis{Name: "p99 latency (ms)", Type: "value", Position: "right", SplitLine: &opts.SplitLine{Show: opts.Bool(false)}})
	c.SetGlobalOptions(
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: []int{0}}, opts.DataZoom{Type: "inside", XAxisIndex: []int{0}}),
		withGrid(opts.Grid{Top: gridTop, Left: "12", Right: "28", Bottom: "84", ContainLabel: opts.Bool(true)}),
		charts.WithInitializationOpts(opts.Initialization{Height: "470px"}),
	)
	c.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: "minutes since the first step started", NameLocation: "middle", NameGap: 26,
		Type: "value", Min: 0, Max: "dataMax"}))
	if len(c.MultiSeries) == 0 {
		return
	}
	s := &c.MultiSeries[0]
	areas := &opts.MarkAreas{MarkAreaStyle: opts.MarkAreaStyle{ItemStyle: &opts.ItemStyle{Color: "rgba(128,128,128,0.13)"}}}
	lines := &opts.MarkLines{MarkLineStyle: opts.MarkLineStyle{Symbol: []string{"none", "none"},
		LineStyle: &opts.LineStyle{Color: "#8c959f", Type: "dashed", Width: 1},
		Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "{b}", Color: "#424a53", FontSize: 11}}}
	for _, m := range marks {
		if m.measure > m.start {
			areas.Data = append(areas.Data, []opts.MarkAreaData{{XAxis: round3(m.start)}, {XAxis: round3(m.measure)}})
		}
		lines.Data = append(lines.Data, opts.MarkLineNameXAxisItem{Name: m.label, XAxis: round3(m.start)})
	}
	s.MarkAreas = areas
	s.MarkLines = lines
}
