package cost

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/costtest"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// issueExample is the cost file of issue 12, with an old baseline added.
const issueExample = `currency: USD
baseline: old-16vc-hdd
configs:
  - name: old-16vc-hdd
` + costtest.HDD16 + `  - name: new-4vc-ssd
    run: new-4vc            # a stored run id or label
` + costtest.SSD4

func parse(t *testing.T, text string) *File {
	t.Helper()
	f, err := Parse("costs.yaml", []byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

func TestWorkedExample(t *testing.T) {
	f := parse(t, issueExample)
	b := f.Configs[1].Price(f.Years)
	for _, c := range []struct{ what, got, want string }{
		{"hardware", b.Hardware.Cents(), "14,331.30"},
		{"OS", b.Licences[0].Cost.Cents(), "12,310.00"},
		{"DB", b.Licences[1].Cost.Cents(), "7,434.00"},
		{"total", b.Total.Cents(), "34,075.30"},
		{"total exact", b.Total.String(), "34075.3"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.what, c.got, c.want)
		}
	}
	if b.Licences[0].Packs != 2 || b.Licences[1].Packs != 2 || b.LicensedCores != 4 {
		t.Errorf("packs %d/%d, licensed cores %d; want 2/2 and 4", b.Licences[0].Packs, b.Licences[1].Packs, b.LicensedCores)
	}
	if b.Licences[0].Kind != KindOS || b.Licences[1].Kind != KindDatabase {
		t.Errorf("kinds %s/%s, want os/database", b.Licences[0].Kind, b.Licences[1].Kind)
	}
}

func TestPacksAndMinimum(t *testing.T) {
	for _, c := range []struct {
		name                    string
		cores                   int64
		minimum, pack           int
		wantLicensed, wantPacks int64
	}{
		{"0 cores, no minimum", 0, 0, 2, 0, 0},
		{"0 cores, minimum 4", 0, 4, 2, 4, 2},
		{"exactly a pack", 16, 16, 16, 16, 1},
		{"one over a pack", 17, 16, 16, 32, 2},
		{"below the minimum", 2, 4, 2, 4, 2},
		{"one over the minimum, odd", 5, 4, 2, 6, 3},
		{"pack of one", 7, 0, 1, 7, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, p := Packs(c.cores, c.minimum, c.pack)
			if l != c.wantLicensed || p != c.wantPacks {
				t.Errorf("Packs(%d, min %d, pack %d) = %d cores, %d packs; want %d, %d", c.cores, c.minimum, c.pack, l, p, c.wantLicensed, c.wantPacks)
			}
		})
	}
}

func TestSavingsAndShares(t *testing.T) {
	f := parse(t, issueExample)
	res, err := Evaluate(context.Background(), f, nil)
	if err == nil || !strings.Contains(err.Error(), "costs.yaml:15:10: configs[1].run") {
		t.Fatalf("a linked run without a store: err = %v, want one at costs.yaml:15:10", err)
	}
	f.Configs[1].Run = ""
	res, err = Evaluate(context.Background(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	old, nw := res.Configs[0], res.Configs[1]
	// old: 7,595.62 + 4,919.76 + 1,512.00 = 14,027.38; OS 12,310; DB 16 cores = 8 packs = 29,736.
	if got := old.Total.Cents(); got != "56,073.38" {
		t.Fatalf("old total %s, want 56,073.38", got)
	}
	if got := nw.Savings.Cents(); got != "21,998.08" {
		t.Errorf("savings %s, want 21,998.08", got)
	}
	if got := fmtPct(*nw.SavingsPct); got != "39.2 %" {
		t.Errorf("savings %s, want 39.2 %%", got)
	}
	if old.Savings.Sign() != 0 || *old.SavingsPct != 0 {
		t.Errorf("the baseline saves %s against itself", old.Savings)
	}
	// DB share: 7,434 / (14,331.30 + 12,310) = 27.90 %; OS: 12,310 / (14,331.30 + 7,434) = 56.56 %.
	if got := fmtPct(*nw.Licences[1].SharePct); got != "27.9 %" {
		t.Errorf("DB share %s, want 27.9 %%", got)
	}
	if got := fmtPct(*nw.Licences[0].SharePct); got != "56.6 %" {
		t.Errorf("OS share %s, want 56.6 %%", got)
	}
}

func TestRules(t *testing.T) {
	const head = "years: 3\nconfigs:\n  - name: c\n    host_cores: 24\n    vm_cores: 6\n    memory_gb: 64\n    licences:\n"
	for _, c := range []struct {
		name, licence, want string
	}{
		{"preset SQL Server 2022 Standard", "{use: sqlserver-2022-standard}", "11,835.00"}, // 6 cores = 3 packs × 3,945
		{"preset with a price override", "{use: sqlserver-2022-standard, pack_price: 4000}", "12,000.00"},
		{"Windows Datacenter 24 cores", "{use: windows-server-2022-datacenter}", "12,310.00"}, // 2 × 16-core packs
		{"Windows Standard minimum", "{use: windows-server-2022-standard, per: vm_core}", "1,069.00"},
		{"Oracle core factor", "{use: oracle-ee}", "142,500.00"},                                            // 6 × 0.5 = 3 processors
		{"Oracle with support", "{use: oracle-ee, support_pct: 22}", "236,550.00"},                          // + 22 % × 3 years
		{"PostgreSQL", "{use: postgresql}", "0.00"},                                                         //
		{"per user", "{name: CAL, per: user, qty: 25, price: 230}", "5,750.00"},                             //
		{"per instance yearly", "{name: support, per: instance, price: 1200.50, yearly: true}", "3,601.50"}, // × 3 years
		{"per memory_gb", "{name: mem, per: memory_gb, price: 2.25}", "144.00"},                             //
		{"per hour", "{name: cloud, per: hour, hours: 730, price: 0.125, qty: 2}", "182.50"},                //
	} {
		t.Run(c.name, func(t *testing.T) {
			f := parse(t, head+"      - "+c.licence+"\n")
			b := f.Configs[0].Price(f.Years)
			if got := b.Licences[0].Cost.Cents(); got != c.want {
				t.Errorf("%s: %s, want %s (%s)", c.licence, got, c.want, b.Licences[0].Rule())
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	const ok = "configs:\n  - name: a\n    vm_cores: 4\n    hardware:\n      - {item: box, price: 100}\n"
	for _, c := range []struct {
		name, text, want string
	}{
		{"unknown top field", "curency: USD\n" + ok, "costs.yaml:1:1: curency: unknown field"},
		{"unknown licence field", "configs:\n  - name: a\n    vm_cores: 4\n    licences:\n      - {name: x, per: vm_core, pak: 2, pack_price: 1}\n",
			"costs.yaml:5:33: pak: unknown field"},
		{"negative price", "configs:\n  - name: a\n    hardware:\n      - {item: box, price: -5}\n", "costs.yaml:4:28: configs[0].hardware[0].price: must not be negative"},
		{"pack 0", "configs:\n  - name: a\n    vm_cores: 4\n    licences:\n      - name: x\n        per: vm_core\n        pack: 0\n        pack_price: 10\n",
			"costs.yaml:7:15: configs[0].licences[0].pack: must be at least 1"},
		{"minimum below 0", "configs:\n  - name: a\n    vm_cores: 4\n    licences:\n      - {name: x, per: vm_core, pack_price: 10, minimum: -1}\n",
			"costs.yaml:5:58: configs[0].licences[0].minimum: must not be negative"},
		{"no price", "configs:\n  - name: a\n    vm_cores: 4\n", "costs.yaml:2:5: configs[0]: config \"a\" has no price"},
		{"unknown preset", "configs:\n  - name: a\n    vm_cores: 4\n    licences:\n      - use: sqlserver-2099\n", "costs.yaml:5:14: configs[0].licences[0].use: no preset"},
		{"unknown baseline", "baseline: b\n" + ok, "costs.yaml:1:11: baseline: \"b\" is not a config name"},
		{"price as text", "configs:\n  - name: a\n    hardware:\n      - {item: box, price: cheap}\n", "costs.yaml:4:28: want a number"},
		{"missing count", "configs:\n  - name: a\n    licences:\n      - {name: x, per: host_core, pack_price: 1}\n",
			"configs[0].licences[0].per: per: host_core needs the config's host_cores"},
		{"pack on a per-user rule", "configs:\n  - name: a\n    licences:\n      - {name: x, per: user, qty: 2, price: 1, pack: 2}\n",
			"configs[0].licences[0].pack: does not apply to per: user"},
		{"duplicate name", ok + "  - name: a\n    hardware:\n      - {item: box, price: 1}\n", "costs.yaml:6:11: configs[1].name: \"a\" is used twice"},
		{"not YAML", "configs: [\n", "costs.yaml:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("costs.yaml", []byte(c.text))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line containing %q", err, c.want)
			}
			var ye *yamlfile.Error
			var yes yamlfile.Errors
			if !errors.As(err, &ye) && !errors.As(err, &yes) {
				t.Errorf("error %T is not a yamlfile error", err)
			}
		})
	}
}

// TestLinkedRun reads price/performance from a real SQLite store.
func TestLinkedRun(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	r := &store.Run{Label: "new-4vc", Users: []int{1, 2}, Repeats: 2, Warehouses: 1}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	// users 1: NOPM 1,000 and 1,200 (mean 1,100); users 2: 2,000 and 2,400 (mean 2,200).
	for i, s := range []struct {
		rep, idx, users int
		tpm, nopm       float64
	}{{1, 0, 1, 2300, 1000}, {1, 1, 2, 4600, 2000}, {2, 0, 1, 2700, 1200}, {2, 1, 2, 5400, 2400}} {
		start := t0.Add(time.Duration(i) * time.Minute)
		step := &store.Step{RunID: r.ID, Repeat: s.rep, Index: s.idx, Users: s.users, TPM: s.tpm, NOPM: s.nopm,
			Start: start, MeasureStart: start.Add(time.Second), MeasureEnd: start.Add(time.Minute)}
		if err := st.AddStep(ctx, step); err != nil {
			t.Fatal(err)
		}
	}
	f := parse(t, issueExample)
	res, err := Evaluate(ctx, f, st)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Configs[1]
	if c.Run == nil || c.Run.RunID != r.ID {
		t.Fatalf("run %+v, want %s", c.Run, r.ID)
	}
	p := c.Run
	if p.PeakNOPM != 2200 || p.PeakNOPMUsers != 2 || p.AvgNOPM != 1650 || p.PeakTPM != 5000 || p.AvgTPM != 3750 {
		t.Errorf("figures %+v, want peak NOPM 2,200 at 2 users, average 1,650, peak TPM 5,000, average 3,750", p.Headline)
	}
	// 34,075.30 / 2,200 = 15.4887...; / 5,000 = 6.8150.6; 2,200 / 4 licensed cores = 550.
	if got := c.PerNOPM.Cents(); got != "15.49" {
		t.Errorf("$/NOPM %s, want 15.49", got)
	}
	if got := c.PerTPM.Cents(); got != "6.82" {
		t.Errorf("$/TPM %s, want 6.82", got)
	}
	if c.NOPMPerCore == nil || *c.NOPMPerCore != 550 {
		t.Errorf("NOPM per licensed core %v, want 550", c.NOPMPerCore)
	}
	var out bytes.Buffer
	if err := WriteText(&out, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"34,075.30", "21,998.08", "39.2 %", "15.49", "2,200", "at 2 users", "550"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}

	f.Configs[1].Run = "no-such-label"
	_, err = Evaluate(ctx, f, st)
	var ye *yamlfile.Error
	if !errors.As(err, &ye) || ye.Line != 15 || !strings.Contains(err.Error(), "no run or label \"no-such-label\"") {
		t.Errorf("unknown run: %v, want a yamlfile.Error at line 15", err)
	}
}

func TestHeadline(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		cr   ConfigResult
		want string
	}{
		{ConfigResult{Breakdown: Breakdown{Name: "new"}, AvgTPMRatio: f(1.234), AvgNOPMRatio: f(1.25), SavingsPct: f(39.2)},
			"new beats old: 1.23× its average TPM over all steps (1.25× NOPM), for 39.2 % less"},
		{ConfigResult{Breakdown: Breakdown{Name: "new"}, AvgTPMRatio: f(0.8), AvgNOPMRatio: f(0.79), SavingsPct: f(-5)},
			"new reaches 0.80× old's average TPM over all steps (0.79× NOPM), for 5.0 % more"},
		{ConfigResult{Breakdown: Breakdown{Name: "new"}, Run: &Perf{Figure: "TPM of every script"}, AvgTPMRatio: f(1.5), AvgNOPMRatio: f(1.5), SavingsPct: f(10)},
			"new beats old: 1.50× its average TPM of every script over all steps (the workload's figure of merit), for 10.0 % less"},
		{ConfigResult{Breakdown: Breakdown{Name: "new"}, Run: &Perf{Figure: "TPM of select"}, AvgTPMRatio: f(0.9), AvgNOPMRatio: f(0.85), SavingsPct: f(10)},
			"new reaches 0.90× old's average TPM over all steps (0.85× TPM of select), for 10.0 % less"},
		{ConfigResult{Breakdown: Breakdown{Name: "new"}, Run: &Perf{Figure: "TPM of select", AvgTPMCI: steady.Interval{Mean: 1000, Half: 50}}, AvgTPMRatio: f(1.02), AvgNOPMRatio: f(1.01), SavingsPct: f(10),
			Indistinct: true, BaselineAvgTPMCI: &steady.Interval{Mean: 980, Half: 40}},
			"new against old: not distinguishable at this precision (average TPM over all steps 1,000 ± 50 against 980 ± 40, 1.02×; 1.01× TPM of select), for 10.0 % less"},
		{ConfigResult{Breakdown: Breakdown{Name: "new"}, Run: &Perf{Figure: "TPM of every script", AvgTPMCI: steady.Interval{Mean: 1000, Half: 50}}, AvgTPMRatio: f(1.02), AvgNOPMRatio: f(1.02), SavingsPct: f(10),
			Indistinct: true, BaselineAvgTPMCI: &steady.Interval{Mean: 980, Half: 40}},
			"new against old: not distinguishable at this precision (average TPM of every script over all steps 1,000 ± 50 against 980 ± 40, 1.02×), for 10.0 % less"},
		{ConfigResult{Breakdown: Breakdown{Name: "new"}, SavingsPct: f(39.2)}, ""},
		{ConfigResult{Breakdown: Breakdown{Name: "old"}, AvgTPMRatio: f(1), AvgNOPMRatio: f(1), SavingsPct: f(0)}, ""},
	} {
		if got := c.cr.Headline("old"); got != c.want {
			t.Errorf("Headline = %q, want %q", got, c.want)
		}
	}
}
