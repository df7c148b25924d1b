package report

import (
	"fmt"
	"html"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"github.com/rightsize/rightsize/cost"
)

// optionalSection is a section that decides by itself whether a report
// shows it (whatever runs it has): the cost section needs a cost model.
type optionalSection interface {
	shown(o Options) bool
}

// costSection is the cost table of a cost model (Options.Cost), a chart
// of total cost per config split by hardware, OS and database, and the
// price/performance of the configs with a linked run.
type costSection struct{}

func (costSection) Title() string        { return "Cost and price/performance" }
func (costSection) Anchor() string       { return "cost" }
func (costSection) shown(o Options) bool { return o.Cost != nil }
func (costSection) Render(p *Page) error { return renderCost(p, p.Cost) }

// costColors are the colours of the cost chart's parts.
var costColors = map[string]string{"hardware": "#5470c6", cost.KindOS: "#fac858", cost.KindDatabase: "#ee6666", cost.KindOther: "#9a60b4"}

// money is an amount for a chart (rounded to cents; display only).
func money(m cost.Money) float64 {
	f, _ := m.Round(2).Float64()
	return f
}

// moneyCell shows an amount, or a muted dash when there is none.
func moneyCell(m *cost.Money) Cell {
	if m == nil {
		return Cell{Text: "-", Class: "num muted"}
	}
	return Num(m.Cents())
}

func renderCost(p *Page, res *cost.Result) error {
	cur := res.Currency
	kinds := []string{cost.KindOS, cost.KindDatabase}
	hasOther := false
	for _, c := range res.Configs {
		hasOther = hasOther || !c.Kind(cost.KindOther).IsZero()
	}
	if hasOther {
		kinds = append(kinds, cost.KindOther)
	}
	for _, c := range res.Configs {
		if h := c.Headline(res.Baseline); h != "" {
			p.Text(h + ".")
		}
	}
	costTable(p, res, kinds)
	licenceTable(p, res)
	p.Charts(costChart(res, kinds), pricePerfChart(res))
	years := ""
	if res.Years > 1 {
		years = fmt.Sprintf(" Yearly subscriptions and support are counted over %d years.", res.Years)
	}
	p.Notef("From cost file %s, amounts in %s, exact and rounded to cents for display.%s "+
		"A licence's share is its cost divided by hardware + the config's other licences, as the published studies print it. "+
		"Price/performance divides the total by the linked run's peak (the step with the highest mean across repeats), as TPC price/performance divides by the reported throughput; "+
		"the average is over all steps, each users count once, ± the half-width of its confidence interval (the steps' intervals across repeats, or batch means with one repeat, combined); "+
		"a configuration is said to beat the baseline only when those intervals separate, else they are not distinguishable at this precision.", res.File, cur, years)
	return nil
}

func costTable(p *Page, res *cost.Result, kinds []string) {
	head := []string{"config", "hardware"}
	for _, k := range kinds {
		head = append(head, k+" licences")
	}
	head = append(head, "total")
	if res.Baseline != "" {
		head = append(head, "savings vs "+res.Baseline, "savings %")
	}
	nopm := res.Figure() // NOPM, or the runs' pgbench workload's figure of merit
	head = append(head, "run", "peak TPM", "peak "+nopm, "avg TPM, all steps", "avg "+nopm+", all steps", res.Currency+" per peak "+nopm,
		res.Currency+" per peak TPM", "peak "+nopm+" per licensed core")
	var rows []Row
	for _, c := range res.Configs {
		cells := []Cell{Txt(c.Name), Num(c.Hardware.Cents())}
		for _, k := range kinds {
			cells = append(cells, Num(c.Kind(k).Cents()))
		}
		cells = append(cells, Num(c.Total.Cents()))
		if res.Baseline != "" {
			pct := Cell{Text: "-", Class: "num muted"}
			if c.SavingsPct != nil && c.Name != res.Baseline {
				pct = Num(fmtPct(*c.SavingsPct))
			}
			sav := moneyCell(c.Savings)
			if c.Name == res.Baseline {
				sav = Cell{Text: "baseline", Class: "muted"}
			}
			cells = append(cells, sav, pct)
		}
		if r := c.Run; r != nil {
			runName := r.RunID
			if r.Label != "" {
				runName = r.Label
			}
			core := Cell{Text: "-", Class: "num muted"}
			if c.NOPMPerCore != nil {
				core = Num(fmtInt(*c.NOPMPerCore) + fmt.Sprintf(" (%d cores)", c.LicensedCores))
			}
			cells = append(cells, Cell{Text: runName, Title: r.RunID}, Num(fmtInt(r.PeakTPM)), Num(fmtInt(r.PeakNOPM)), Num(withHalf(r.AvgTPM, r.AvgTPMCI.Half)),
				Num(withHalf(r.AvgNOPM, r.AvgNOPMCI.Half)), moneyCell(c.PerNOPM), moneyCell(c.PerTPM), core)
		} else {
			for range 8 {
				cells = append(cells, Cell{Text: "-", Class: "num muted"})
			}
		}
		rows = append(rows, Row{Cells: cells})
	}
	p.Table(Table{Caption: "Cost per configuration (" + res.Currency + ")", Head: head, Rows: rows})
}

func licenceTable(p *Page, res *cost.Result) {
	var rows []Row
	for _, c := range res.Configs {
		for _, l := range c.Licences {
			share := Cell{Text: "-", Class: "num muted"}
			if l.SharePct != nil {
				share = Num(fmtPct(*l.SharePct))
			}
			rows = append(rows, Row{Cells: []Cell{Txt(c.Name), Txt(l.Name), Txt(l.Kind), Cell{Text: l.Rule(), Class: "wrap"}, Num(l.Cost.Cents()), share}})
		}
	}
	if len(rows) == 0 {
		return
	}
	p.Table(Table{Caption: "Licences", Head: []string{"config", "licence", "kind", "counted", "cost", "share of hardware + other licences"}, Rows: rows})
}

// costChart stacks each config's hardware and licence kinds into one bar.
func costChart(res *cost.Result, kinds []string) Chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(rectOpts(ChartText{Title: "Total cost per configuration", Subtitle: "hardware and licences stacked",
		YName: res.Currency}, "axis")...)
	var names []string
	for _, c := range res.Configs {
		names = append(names, c.Name)
	}
	bar.SetXAxis(names)
	parts := append([]string{"hardware"}, kinds...)
	for _, k := range parts {
		data := make([]opts.BarData, len(res.Configs))
		for i, c := range res.Configs {
			v := c.Hardware
			if k != "hardware" {
				v = c.Kind(k)
			}
			data[i] = opts.BarData{Value: money(v)}
		}
		name := k
		if k != "hardware" {
			name = k + " licences"
		}
		bar.AddSeries(name, data, charts.WithBarChartOpts(opts.BarChart{Stack: "total", BarCategoryGap: "40%"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: costColors[k]}))
	}
	return bar
}

// pricePerfChart shows each linked config's price per peak NOPM (or
// per the runs' workload's figure of merit).
func pricePerfChart(res *cost.Result) Chart {
	nopm := res.Figure()
	var names []string
	var data []opts.BarData
	for _, c := range res.Configs {
		if c.PerNOPM == nil {
			continue
		}
		names = append(names, c.Name)
		tip := fmt.Sprintf("%s<br/>total %s %s<br/>peak %s %s<br/><b>%s per %s</b>", tooltipHTML(c.Name), html.EscapeString(res.Currency),
			c.Total.Cents(), nopm, fmtInt(c.Run.PeakNOPM), c.PerNOPM.Cents(), nopm)
		data = append(data, opts.BarData{Value: money(*c.PerNOPM), Tooltip: &opts.Tooltip{Formatter: types.FuncStr(tip)}})
	}
	sub := "lower is better"
	if len(names) == 0 {
		sub = "no config links a run (run: in the cost file)"
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(rectOpts(ChartText{Title: "Price per peak " + nopm, Subtitle: sub, YName: res.Currency + " per " + nopm}, "item")...)
	bar.SetXAxis(names)
	bar.AddSeries(res.Currency+" per peak "+nopm, data, charts.WithBarChartOpts(opts.BarChart{BarCategoryGap: "40%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#3ba272"}))
	return bar
}
