package caps

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/mysql"
	"github.com/rightsize/rightsize/engine/postgres"
)

func TestParseIOLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want IOLimit
		err  bool
	}{
		{"none", IOLimit{}, false},
		{"riops=2000,wiops=500", IOLimit{ReadIOPS: 2000, WriteIOPS: 500}, false},
		{"riops=2000:wiops=500", IOLimit{ReadIOPS: 2000, WriteIOPS: 500}, false},
		{"rbps=100M,wbps=1G", IOLimit{ReadBPS: 100 << 20, WriteBPS: 1 << 30}, false},
		{"riops=0", IOLimit{}, true},
		{"iops=5", IOLimit{}, true},
		{"riops", IOLimit{}, true},
	} {
		got, err := ParseIOLimit(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseIOLimit(%q) = %+v, %v", c.in, got, err)
		}
		if err == nil {
			if back, _ := ParseIOLimit(got.String()); back != got {
				t.Errorf("String round trip of %q: %q", c.in, got.String())
			}
		}
	}
}

func TestParseCPUs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  bool
	}{{"2", 2, false}, {"1.5", 1.5, false}, {"0.5", 0.5, false}, {"3", 0, true}, {"0", 0, true}, {"x", 0, true}, {"NaN", 0, true}, {"Inf", 0, true}} {
		got, err := ParseCPUs(c.in, 2)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseCPUs(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestPlan(t *testing.T) {
	for _, c := range []struct {
		name     string
		caps     Caps
		engine   engine.Tuning
		server   []int
		quota    float64
		driver   []int
		settings map[string]string
		bad      bool
	}{
		{"one of two cores", Caps{CPUs: 1}, postgres.Tuning, []int{1}, 0, []int{0},
			map[string]string{"max_worker_processes": "8", "max_parallel_workers": "1", "max_parallel_workers_per_gather": "0", "max_parallel_maintenance_workers": "1"}, false},
		{"fraction", Caps{CPUs: 1.5}, postgres.Tuning, []int{0, 1}, 1.5, nil,
			map[string]string{"max_worker_processes": "8", "max_parallel_workers": "2", "max_parallel_workers_per_gather": "1", "max_parallel_maintenance_workers": "1"}, false},
		{"memory split", Caps{Memory: 1 << 30}, postgres.Tuning, nil, 0, nil,
			map[string]string{"shared_buffers": "524288kB", "effective_cache_size": "524288kB"}, false},
		{"memory split above the reserve", Caps{Memory: 128 << 20}, postgres.Tuning, nil, 0, nil,
			map[string]string{"shared_buffers": "65536kB", "effective_cache_size": "65536kB"}, false},
		{"set wins", Caps{Memory: 256 << 20, Set: map[string]string{"shared_buffers": "64MB"}}, postgres.Tuning, nil, 0, nil,
			map[string]string{"shared_buffers": "64MB", "effective_cache_size": "131072kB"}, false},
		{"mariadb", Caps{CPUs: 2, Memory: 1 << 30}, mysql.Tuning, []int{0, 1}, 0, nil,
			map[string]string{"innodb_buffer_pool_size": "805306368", "thread_pool_size": "2", "innodb_read_io_threads": "2", "innodb_write_io_threads": "2"}, false},
		{"driver chosen", Caps{CPUs: 1, DriverCPUs: "1"}, postgres.Tuning, []int{1}, 0, []int{1}, nil, false},
		{"cores chosen", Caps{CPUs: 1, Cores: []int{0}}, postgres.Tuning, []int{0}, 0, []int{1},
			map[string]string{"max_worker_processes": "8", "max_parallel_workers": "1", "max_parallel_workers_per_gather": "0", "max_parallel_maintenance_workers": "1"}, false},
		{"cores not the machine's", Caps{CPUs: 1, Cores: []int{2}}, postgres.Tuning, nil, 0, nil, nil, true},
		{"cores fewer than cpus", Caps{CPUs: 2, Cores: []int{1}}, postgres.Tuning, nil, 0, nil, nil, true},
		{"too many cores", Caps{CPUs: 3}, postgres.Tuning, nil, 0, nil, nil, true},
		{"memory too small", Caps{Memory: 90 << 20}, postgres.Tuning, nil, 0, nil, nil, true},
		{"memory too small for mariadb", Caps{Memory: 150 << 20}, mysql.Tuning, nil, 0, nil, nil, true},
		{"driver core missing", Caps{DriverCPUs: "5"}, postgres.Tuning, nil, 0, nil, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.caps.Plan(c.engine, 2)
			if c.bad {
				if !errors.Is(err, ErrBad) {
					t.Fatalf("Plan = %v, want ErrBad", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.ServerCPUs, c.server) || p.Quota != c.quota || !reflect.DeepEqual(p.DriverCPUs, c.driver) {
				t.Errorf("cores: server %v quota %v driver %v", p.ServerCPUs, p.Quota, p.DriverCPUs)
			}
			if c.settings != nil && !reflect.DeepEqual(p.Settings, c.settings) {
				t.Errorf("settings %v, want %v", p.Settings, c.settings)
			}
		})
	}
}

func TestPlanLimits(t *testing.T) {
	p, err := Caps{CPUs: 0.5, Memory: 128 << 20}.Plan(postgres.Tuning, 2)
	if err != nil {
		t.Fatal(err)
	}
	dev := cgroup.Device{Major: 254}
	got := p.Limits(IOLimit{ReadIOPS: 100}, []cgroup.Device{dev})
	want := cgroup.Limits{CPUs: "1", Quota: 0.5, Memory: 128 << 20, IO: []cgroup.DeviceLimit{{Device: dev, ReadIOPS: 100}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Limits = %+v, want %+v", got, want)
	}
}
