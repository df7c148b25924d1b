package report

import (
	"context"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

// fixtureRun describes a constructed run.
type fixtureRun struct {
	label   string
	users   []int
	repeats int
	// tpm returns the TPM of a step; repeats vary around it by jitter.
	tpm    func(users int) float64
	jitter float64
	// latMs is the median latency of New-Order at a users count.
	latMs      func(users int) float64
	cpus       int
	env        map[string]string
	flags      map[string]string
	noHost     bool
	errors     bool
	stallAt    int // users count whose step stalls for 20 s (0: none)
	unstableAt int // users count whose repeats differ by ~30 %
}

var txnMix = []struct {
	name  string
	share float64
	lat   float64 // latency factor vs new_order
}{
	{"new_order", 0.45, 1}, {"payment", 0.43, 0.6}, {"order_status", 0.04, 0.3}, {"delivery", 0.04, 2.5}, {"stock_level", 0.04, 1.5},
}

func encodeHist(t *testing.T, h *hdrhistogram.Histogram) store.HdrHist {
	t.Helper()
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// latencyHist records n latencies (µs) log-normally spread around medianMs.
func latencyHist(rng *rand.Rand, n int, medianMs float64) *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for range n {
		v := medianMs * 1000 * math.Exp(rng.NormFloat64()*0.45)
		_ = h.RecordValue(int64(v) + 1)
	}
	return h
}

// buildRun stores one constructed run with every child table filled and
// returns its id.
func buildRun(t *testing.T, st *store.Store, start time.Time, f fixtureRun) string {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(len(f.label)), 7))
	rampup, dur := 20*time.Second, 60*time.Second
	env := map[string]string{"host.name": "db1", "host.logical_cpus": "16", "host.physical_cores": "8",
		"host.cpu_model": "Intel(R) Xeon(R) Gold 6230", "host.memory_bytes": "68719476736", "engine": "postgres",
		"engine.version": "PostgreSQL 16.4 on x86_64-pc-linux-gnu", "setting.shared_buffers": "8GB", "rightsize.version": "test"}
	for k, v := range f.env {
		env[k] = v
	}
	r := &store.Run{Label: f.label, Source: store.SourceRightsize, Target: "embedded", Engine: "postgres",
		EngineVersion: "PostgreSQL 16.4 on x86_64-pc-linux-gnu, compiled by gcc", Mode: "procedures", Warehouses: 20, Seed: 42,
		Users: f.users, Rampup: rampup, Duration: dur, Repeats: f.repeats, Flags: f.flags, Env: env, StartedAt: start}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	at := start
	for rep := 1; rep <= f.repeats; rep++ {
		for idx, u := range f.users {
			jit := 1 + f.jitter*(rng.Float64()*2-1)
			if u == f.unstableAt {
				jit = 1 + 0.3*float64(rep-2)
			}
			tpm := f.tpm(u) * jit
			nopm := tpm * 0.45
			s := store.Step{RunID: r.ID, Repeat: rep, Index: idx, Users: u, Start: at, MeasureStart: at.Add(rampup),
				MeasureEnd: at.Add(rampup + dur), TPM: tpm, NOPM: nopm, TPMPerUser: tpm / float64(u),
				DriverCPUUsPerTxn: 12, ServerCPUUsPerTxn: 140}
			busy := math.Min(95, 8+float64(u)*64/float64(f.cpus))
			if !f.noHost {
				iow := math.Min(100-busy, math.Max(1, 12-float64(u)/3)*16/float64(f.cpus)/2)
				s.Host = store.HostSummary{CPUBusyPct: busy, CPUIowaitPct: iow, CPUIdlePct: math.Max(0, 100-busy-iow), CPUUserPct: busy * 0.7,
					CPUSystemPct: busy * 0.3, DiskReadIOPS: 300 + 40*float64(u), DiskWriteIOPS: 900 + 120*float64(u),
					DiskReadMBps: 5, DiskWriteMBps: 20, DiskAvgLatencyMs: (0.4 + 0.05*float64(u)) * float64(f.cpus) / 4, MemUsedBytes: 8 << 30}
				s.ServerCPUPct = busy * float64(f.cpus) * 0.9
				s.DriverCPUPct = busy * float64(f.cpus) * 0.04
			}
			measuredTxn := int(tpm * dur.Minutes())
			for _, m := range txnMix {
				n := max(1, int(float64(measuredTxn)*m.share))
				hn := min(n, 4000) // enough samples for percentiles, quick to build
				h := latencyHist(rng, hn, f.latMs(u)*m.lat)
				ts := store.TxnSummary{Type: m.name, Txn: figures.Txn{Count: int64(n), P50Ms: float64(h.ValueAtQuantile(50)) / 1000,
					P90Ms: float64(h.ValueAtQuantile(90)) / 1000, P95Ms: float64(h.ValueAtQuantile(95)) / 1000,
					P99Ms: float64(h.ValueAtQuantile(99)) / 1000, MaxMs: float64(h.Max()) / 1000}, MeanMs: h.Mean() / 1000,
					Hist: encodeHist(t, h)}
				if m.name == "new_order" {
					ts.Rollbacks = int64(n / 100)
				}
				if f.errors && m.name == "payment" && u == f.users[len(f.users)-1] {
					ts.Errors = 3
					ts.FirstError = `ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)`
				}
				s.Txn = append(s.Txn, ts)
			}
			total := int((rampup + dur) / time.Second)
			perSec := tpm / 60
			for sec := 0; sec < total; sec++ {
				v := perSec * (0.92 + 0.16*rng.Float64())
				if sec < 5 {
					v *= float64(sec+1) / 6 // users warming up
				}
				if u == f.stallAt && sec >= 40 && sec < 60 {
					v *= 0.15 // a checkpoint stall
				}
				s.Seconds = append(s.Seconds, store.Second{Offset: sec, Txn: int64(v), NewOrders: int64(v * 0.45)})
			}
			for w := time.Duration(0); w < rampup+dur; w += 10 * time.Second {
				for _, m := range txnMix[:2] {
					lat := f.latMs(u) * m.lat
					if u == f.stallAt && w >= 40*time.Second && w < 60*time.Second {
						lat *= 8
					}
					s.Windows = append(s.Windows, store.Window{Offset: w, Type: m.name, Hist: encodeHist(t, latencyHist(rng, 300, lat))})
				}
			}
			if !f.noHost {
				for sec := 0; sec < total; sec += 5 {
					s.Samples = append(s.Samples, store.HostSample{At: at.Add(time.Duration(sec) * time.Second), Host: store.HostSummary{CPUBusyPct: busy,
						CPUIdlePct: 100 - busy, DiskWriteIOPS: 900, DiskAvgLatencyMs: 0.5}})
				}
			}
			if err := st.AddStep(ctx, &s); err != nil {
				t.Fatal(err)
			}
			at = at.Add(rampup + dur + 5*time.Second)
		}
	}
	if err := st.FinishRun(ctx, r.ID, store.StatusComplete, at); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// finishAndLoad marks run id complete and loads it as the report reads it.
func finishAndLoad(t *testing.T, st *store.Store, id string) RunData {
	t.Helper()
	ctx := context.Background()
	if err := st.FinishRun(ctx, id, store.StatusComplete, time.Time{}); err != nil {
		t.Fatal(err)
	}
	runs, err := Load(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

// checkScriptsIntact fails when user text (what) broke out of its element
// in page: markup outside the script elements, or script elements that do
// not close where they should.
func checkScriptsIntact(t *testing.T, page, what string) {
	t.Helper()
	// Outside the script elements (which end at the first "</script>"), no
	// markup from the user's text.
	outside := regexp.MustCompile(`(?s)<script[^>]*>.*?</script>`).ReplaceAllString(page, "")
	if strings.Contains(outside, "<img") {
		t.Errorf("%s broke out of its element", what)
	}
	// As many opening tags as closing ones: the chart scripts are intact.
	if o, c := strings.Count(page, "<script"), strings.Count(page, "</script>"); o != c {
		t.Errorf("%d <script> for %d </script>", o, c)
	}
}

// studyStore builds a store with two runs shaped like Study A: an HDD
// baseline on 16 cores and an SSD run on 4 cores, three repeats each.
func studyStore(t *testing.T) (*store.Store, []string) {
	t.Helper()
	st := storetest.Open(t)
	users := []int{1, 2, 3, 5, 8, 13}
	start := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	hdd := buildRun(t, st, start, fixtureRun{label: "HDD/16 cores", users: users, repeats: 3, jitter: 0.03,
		tpm:   func(u int) float64 { return 30000 * math.Min(float64(u), 6) },
		latMs: func(u int) float64 { return 4 + float64(u)*0.8 }, cpus: 16,
		flags: map[string]string{"users": "1,2,3,5,8,13", "repeats": "3"}, stallAt: 8, unstableAt: 5})
	ssd := buildRun(t, st, start.Add(3*time.Hour), fixtureRun{label: "SSD/4 cores", users: users, repeats: 3, jitter: 0.02,
		tpm:   func(u int) float64 { return 37000 * math.Min(float64(u), 7) },
		latMs: func(u int) float64 { return 2 + float64(u)*0.5 }, cpus: 4,
		env:   map[string]string{"host.logical_cpus": "4", "host.physical_cores": "4", "setting.shared_buffers": "2GB"},
		flags: map[string]string{"users": "1,2,3,5,8,13", "repeats": "3", "cpus": "4"}, errors: true})
	return st, []string{hdd, ssd}
}
