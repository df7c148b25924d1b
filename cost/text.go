package cost

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rightsize/rightsize/steady"
)

// WriteText prints the result as the studies' cost table: per config the
// hardware subtotal, each licence with its rule and share, the total, the
// savings against the baseline and, with a linked run, price/performance.
func WriteText(w io.Writer, res *Result) error {
	cur := res.Currency
	head := fmt.Sprintf("cost model %s (%s", res.File, cur)
	if res.Years > 1 {
		head += fmt.Sprintf(", %d years", res.Years)
	}
	if res.Baseline != "" {
		head += ", baseline " + res.Baseline
	}
	t := &textTable{}
	t.add(head + ")")
	nopm := res.Figure() // NOPM, or a pgbench workload's figure of merit
	if nopm != "NOPM" {
		t.add("(the runs ran a pgbench workload: its figure of merit, " + nopm + ", stands where TPC-C's NOPM would)")
	}
	for _, c := range res.Configs {
		t.add("")
		t.add(c.Name)
		t.add("  hardware", c.Hardware.Cents())
		for _, l := range c.Licences {
			share := ""
			if l.SharePct != nil {
				share = fmtPct(*l.SharePct) + " of hardware + other licences"
			}
			t.add(fmt.Sprintf("  %s (%s, %s)", l.Name, l.Kind, l.Rule()), l.Cost.Cents(), share)
		}
		t.add("  total", c.Total.Cents())
		if c.Savings != nil && c.Name != res.Baseline {
			pct := ""
			if c.SavingsPct != nil {
				pct = fmtPct(*c.SavingsPct)
			}
			t.add("  savings vs "+res.Baseline, c.Savings.Cents(), pct)
		}
		if p := c.Run; p != nil {
			t.add(fmt.Sprintf("  run %s %s", p.RunID, p.Label))
			t.add("  peak TPM", fmtInt(p.PeakTPM), fmt.Sprintf("at %d users", p.PeakTPMUsers))
			t.add("  peak "+nopm, fmtInt(p.PeakNOPM), fmt.Sprintf("at %d users", p.PeakNOPMUsers))
			t.add(fmt.Sprintf("  average TPM / %s over %d steps", nopm, p.Steps), withHalf(steady.Interval{Mean: p.AvgTPM, Half: p.AvgTPMCI.Half}),
				withHalf(steady.Interval{Mean: p.AvgNOPM, Half: p.AvgNOPMCI.Half})+" "+nopm)
			t.add("  "+cur+" per peak "+nopm, moneyOrDash(c.PerNOPM))
			t.add("  "+cur+" per peak TPM", moneyOrDash(c.PerTPM))
			if c.NOPMPerCore != nil {
				t.add(fmt.Sprintf("  peak %s per licensed core (%d cores)", nopm, c.LicensedCores), fmtInt(*c.NOPMPerCore))
			}
		}
	}
	var heads []string
	for _, c := range res.Configs {
		if h := c.Headline(res.Baseline); h != "" {
			heads = append(heads, h+".")
		}
	}
	if len(heads) > 0 {
		t.add("")
		for _, h := range heads {
			t.add(h)
		}
	}
	return t.write(w)
}

// textTable prints rows of a label (left-aligned), an amount
// (right-aligned) and a note; a row of one cell is printed as it is.
type textTable struct{ rows [][]string }

func (t *textTable) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *textTable) write(w io.Writer) error {
	wl, wa := 0, 0
	for _, r := range t.rows {
		if len(r) > 1 {
			wl = max(wl, utf8.RuneCountInString(r[0]))
			wa = max(wa, len(r[1]))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		if len(r) == 1 {
			b.WriteString(r[0] + "\n")
			continue
		}
		line := r[0] + strings.Repeat(" ", wl-utf8.RuneCountInString(r[0])) + "  " + strings.Repeat(" ", wa-len(r[1])) + r[1]
		if len(r) > 2 && r[2] != "" {
			line += "  " + r[2]
		}
		b.WriteString(line + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Rule describes how the licence was counted: "20 host cores → 2 × 16-core
// packs", "4 vm cores, minimum 4 → 2 × 2-core packs", "3 users".
func (l LicenceCost) Rule() string {
	var s string
	switch l.Per {
	case PerHostCore, PerVMCore:
		s = fmt.Sprintf("%s %s cores", l.Counted, strings.TrimSuffix(l.Per, "_core"))
		if l.CoreFactor != nil {
			s += " after core factor " + l.CoreFactor.String()
		}
		if int64(l.Minimum) > l.Counted.IntPart() {
			s += fmt.Sprintf(", minimum %d", l.Minimum)
		}
		s += fmt.Sprintf(" → %d × %d-core pack", l.Packs, l.Pack)
		if l.Packs != 1 {
			s += "s"
		}
	case PerMemoryGB:
		s = l.Counted.String() + " GB"
	case PerHour:
		s = l.Counted.String() + " hours"
	default:
		s = l.Counted.String() + " " + l.Per
		if !l.Counted.Equal(one) {
			s += "s"
		}
	}
	if !l.Support.IsZero() {
		s += ", support " + l.Support.Cents()
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func moneyOrDash(m *Money) string {
	if m == nil {
		return "-"
	}
	return m.Cents()
}

func fmtPct(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) + " %" }

// fmtInt rounds to a whole number with thousands separators.
func fmtInt(x float64) string { return groupDigits(strconv.FormatFloat(x, 'f', 0, 64)) }
