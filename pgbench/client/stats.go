package client

import (
	"errors"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/pgbench/script"
)

// Stats accumulates outcomes per script and per command: counts, errors
// and latency histograms (microseconds, 1 µs to 1 h, 3 digits).
type Stats struct {
	Scripts []ScriptStats
}

// ScriptStats is one script's figures.
type ScriptStats struct {
	Name     string
	Count    int64 // transactions that ended without error
	Errors   int64
	Retries  int64 // tries after the first, over all transactions
	Latency  *hdrhistogram.Histogram
	Commands []CommandStats
}

// CommandStats is one command's figures.
type CommandStats struct {
	Line    int
	Text    string
	Count   int64 // runs, successful or not
	Errors  int64
	Latency *hdrhistogram.Histogram
}

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
}

// NewStats returns empty figures for scripts.
func NewStats(scripts []*script.Script) *Stats {
	st := &Stats{}
	for _, s := range scripts {
		ss := ScriptStats{Name: s.Name, Latency: newHistogram()}
		for _, c := range s.Commands {
			ss.Commands = append(ss.Commands, CommandStats{Line: c.Line, Text: c.Text, Latency: newHistogram()})
		}
		st.Scripts = append(st.Scripts, ss)
	}
	return st
}

// Record adds one outcome.
func (st *Stats) Record(o Outcome) {
	ss := &st.Scripts[o.Script]
	failed := -1
	var ce *CommandError
	if errors.As(o.Err, &ce) {
		failed = ce.Command
	}
	ss.Retries += int64(max(0, o.Tries-1))
	if o.Err != nil {
		ss.Errors++
	} else {
		ss.Count++
		_ = ss.Latency.RecordValue(micros(o.Latency))
	}
	for i, d := range o.Commands {
		cs := &ss.Commands[i]
		switch {
		case i == failed:
			cs.Count++
			cs.Errors++
		case d > 0:
			cs.Count++
			_ = cs.Latency.RecordValue(micros(d))
		}
	}
}

func micros(d time.Duration) int64 { return max(1, d.Microseconds()) }

// Merge adds other's figures (of the same scripts) to st.
func (st *Stats) Merge(other *Stats) {
	for i := range st.Scripts {
		a, b := &st.Scripts[i], &other.Scripts[i]
		a.Count += b.Count
		a.Errors += b.Errors
		a.Retries += b.Retries
		a.Latency.Merge(b.Latency)
		for j := range a.Commands {
			a.Commands[j].Count += b.Commands[j].Count
			a.Commands[j].Errors += b.Commands[j].Errors
			a.Commands[j].Latency.Merge(b.Commands[j].Latency)
		}
	}
}
