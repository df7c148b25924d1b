package metrics

import (
	"net"
	"os"
	"regexp"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
)

func TestLatencyBuckets(t *testing.T) {
	cases := []struct {
		name   string
		us     []int64
		bucket []int // expected bucket of each value
	}{
		{"sub-millisecond", []int64{100, 400}, []int{0, 0}},
		{"one and a half ms", []int64{1500}, []int{2}}, // 0.5, 1, 2 ms
		{"a second", []int64{1_000_000}, []int{11}},    // 0.5 ms × 2^11 = 1.024 s
		{"beyond the last bound", []int64{59_000_000, 70_000_000}, []int{17, 18}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := hdrhistogram.New(1, 120_000_000, 3)
			for _, v := range c.us {
				_ = h.RecordValue(v)
			}
			b := latency{buckets: make([]uint64, len(Buckets)+1)}
			b.add(h)
			want := make([]uint64, len(Buckets)+1)
			for _, i := range c.bucket {
				want[i]++
			}
			for i := range want {
				if b.buckets[i] != want[i] {
					t.Fatalf("buckets %v, want %v", b.buckets, want)
				}
			}
			if b.count != uint64(len(c.us)) {
				t.Fatalf("count %d, want %d", b.count, len(c.us))
			}
		})
	}
}

func TestServeBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Serve(ln.Addr().String(), New("0/1"))
	if err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Fatalf("Serve on a busy port: %v, want an error naming --metrics-addr", err)
	}
}

// TestDashboardNames checks that the Grafana dashboard reads only metrics
// this package serves.
func TestDashboardNames(t *testing.T) {
	b, err := os.ReadFile("../deploy/grafana/rightsize.json")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc, 32)
	New("0/1").Describe(ch)
	close(ch)
	served := map[string]bool{}
	for d := range ch {
		served[regexp.MustCompile(`fqName: "([a-z_]+)"`).FindStringSubmatch(d.String())[1]] = true
	}
	used := regexp.MustCompile(`rightsize_[a-z_]+`).FindAllString(string(b), -1)
	if len(used) < 5 {
		t.Fatalf("the dashboard names %d metrics, want its queries", len(used))
	}
	for _, name := range used {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_count"), "_sum")
		if !served[base] {
			t.Errorf("the dashboard reads %s, which is not served (served: %v)", name, served)
		}
	}
}
