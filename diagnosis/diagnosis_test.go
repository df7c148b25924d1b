package diagnosis

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/waits"
)

func profile(events ...waits.Event) *waits.Profile {
	p := &waits.Profile{Seconds: 10, Events: events}
	p.Normalize()
	return p
}

func ev(c waits.Class, name string, s float64) waits.Event {
	return waits.Event{Class: c, Name: name, Seconds: s}
}

func TestDiagnose(t *testing.T) {
	cpu := ev(waits.CPU, "CPU", 10)
	cases := []struct {
		name string
		step Step
		kind string
		text string // a part of the text
	}{
		{"driver", Step{Saturation: &waits.Saturation{Cores: 2, DriverCores: 0.8}}, "driver-bound", "80 % of a core"},
		{"log", Step{Waits: profile(cpu, ev(waits.Log, "IO:WALSync", 8)), Saturation: &waits.Saturation{Disk: "sda", DiskP99Ms: 8}},
			"log-bound", "44 % of active time in WAL/log (IO:WALSync 44 %), disk sda p99 8.0 ms"},
		{"lock", Step{Waits: &waits.Profile{Seconds: 10, Events: []waits.Event{ev(waits.Lock, "Lock:transactionid", 6), cpu},
			Locks: []waits.LockWait{{Type: "tuple", Relation: "district", Samples: 3}}}}, "lock-bound", "most waited lock: tuple on district"},
		{"lock without table", Step{Waits: &waits.Profile{Seconds: 10, Events: []waits.Event{ev(waits.Lock, "Lock:transactionid", 6), cpu},
			Locks: []waits.LockWait{{Type: "transactionid", Samples: 30}, {Type: "transactionid", Relation: "district", Samples: 10},
				{Type: "transactionid", Relation: "warehouse", Samples: 12}, {Type: "tuple", Relation: "district", Samples: 5}}}},
			"lock-bound", "most waited lock: transactionid, most waited table: district"},
		{"reads", Step{Waits: profile(cpu, ev(waits.IO, "IO:DataFileRead", 7))}, "I/O-bound on reads", "IO:DataFileRead"},
		{"writes", Step{Waits: profile(cpu, ev(waits.IO, "IO:DataFileWrite", 7))}, "I/O-bound on writes", ""},
		{"latch", Step{Waits: profile(cpu, ev(waits.Latch, "LWLock:BufferContent", 5))}, "latch-bound", ""},
		{"below share", Step{Waits: profile(cpu, ev(waits.Lock, "Lock:tuple", 2)), Saturation: &waits.Saturation{Cores: 2, ServerCores: 1.9}},
			"CPU-bound", "the server used 1.90 of 2 cores (83 % of active time on CPU)"},
		{"host busy", Step{Saturation: &waits.Saturation{Cores: 2, HostBusyPct: 95}}, "CPU-bound", "95 % busy"},
		{"memory", Step{Saturation: &waits.Saturation{Cores: 2, MajorFaultsPerSec: 500}}, "memory-bound", "500 major"},
		{"disk", Step{Saturation: &waits.Saturation{Cores: 2, DiskP99Ms: 30}}, "disk-bound", "p99 30.0 ms"},
		{"client", Step{Users: 4, Waits: profile(ev(waits.CPU, "CPU", 2), ev(waits.Client, "Client:ClientRead", 5))}, "client-bound", "71 %"},
		{"idle", Step{Users: 4, Waits: profile(ev(waits.CPU, "CPU", 5)), Saturation: &waits.Saturation{Cores: 2, ServerCores: 0.5}},
			"not saturated", "the server used 0.50 of 2 cores, 0.5 sessions active on average for 4 users"},
		{"nothing", Step{}, "not saturated", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Diagnose(c.step)
			if v.Kind != c.kind || !strings.Contains(v.Text, c.text) {
				t.Errorf("Diagnose = %+v, want kind %q with %q", v, c.kind, c.text)
			}
		})
	}
}

func TestRun(t *testing.T) {
	lock := profile(ev(waits.CPU, "CPU", 5), ev(waits.Lock, "Lock:transactionid", 5))
	cases := []struct {
		name string
		tpm  []float64
		knee int
		text string
	}{
		{"flattens", []float64{100, 200, 205, 150}, 1, "throughput stops rising at 2 users (TPM 200; +2 % at 4 users): lock-bound"},
		{"falls", []float64{100, 90}, 0, "throughput stops rising at 1 users (TPM 100; -10 % at 2 users)"},
		{"rises", []float64{100, 200, 300}, 2, "throughput still rising at the last step, 4 users"},
		{"one step", []float64{100}, 0, "at 1 users (one step)"},
		{"zero", []float64{0, 0}, 0, "throughput stops rising at 1 users (TPM 0)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var steps []Step
			for i, x := range c.tpm {
				steps = append(steps, Step{Users: 1 << i, TPM: x, Waits: lock})
			}
			if k, _ := Knee(steps); k != c.knee {
				t.Errorf("Knee = %d, want %d", k, c.knee)
			}
			if v := Run(steps); !strings.Contains(v.Text, c.text) {
				t.Errorf("Run = %q, want %q", v.Text, c.text)
			}
		})
	}
	if k, _ := Knee(nil); k != -1 {
		t.Errorf("Knee(nil) = %d", k)
	}
}
