// Package report turns stored runs into what people publish: one
// self-contained HTML file with charts and tables that opens offline (the
// echarts JavaScript is embedded, nothing is fetched), a k6-style text
// summary for the end of a run, and a side-by-side comparison of two runs.
//
// The HTML report is a list of sections. A section is a small, local piece
// of code: implement Section and add it to the registry in sections.go (or
// pass Options.Sections); the page, its table of contents and the chart
// plumbing are shared.
//
// The package holds three jobs, each a file set; they stay one package
// because a Comparison's methods span them (its text table and its
// verdicts), a ComparisonRow holds the gate's Estimate and the text and
// HTML share stats.go's helpers:
//
//   - HTML report: report.go, page.go, sections.go, subject.go, charts.go,
//     predicted.go and one file per section (answer, cost, fit, history,
//     neighbour, probes*, sweep, validity, why).
//   - Terminal text: text_*.go: the run summary (text_summary.go), the
//     step and transaction tables (text_steptable.go, text_txntable.go),
//     compare's table (text_compare.go), and the text forms of three
//     sections: how the steps ended and compare's repeat verdicts
//     (text_answer.go), validity (text_validity.go), why (text_why.go);
//     what a section's text and HTML share stays in the section's file.
//   - Regression gate: gate_*.go: judging two estimates
//     (gate_verdict.go), the verdicts of a comparison (gate.go), the drift
//     that widens a single run (gate_drift.go), New-Order latency from
//     measured windows (gate_p90.go), the verdict lines (gate_lines.go) and
//     JUnit XML (gate_junit.go).
package report
