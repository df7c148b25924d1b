package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/rightsize/rightsize/driver"
)

// terminalColumns is the width of w when it is a terminal that bars can be
// drawn on (0 otherwise, and when the terminal reports no width or no
// height: mpb draws no line on a terminal of 0 rows).
func terminalColumns(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	if err != nil || rows <= 0 {
		return 0
	}
	return cols
}

// stepProgress shows the live figures of the running step: on a terminal
// (with a width) one mpb bar per step redrawn every second, otherwise a
// plain line every interval.
type stepProgress struct {
	w        io.Writer
	interval time.Duration
	steps    int // steps per repeat
	repeats  int
	tty      bool
	// tps shows TPS instead of TPM and NOPM (a pgbench workload's run)
	tps bool

	mu       sync.Mutex // p, bar, lastLine; never held while decorators run
	p        *mpb.Progress
	bar      *mpb.Bar
	total    int64 // the bar's total (ms of ramp-up and measurement)
	lastLine time.Time

	dmu   sync.Mutex // label and live, read by the decorators
	label string
	live  driver.Progress
}

func newStepProgress(w io.Writer, interval time.Duration, steps, repeats int) *stepProgress {
	return &stepProgress{w: w, interval: interval, steps: steps, repeats: repeats, tty: terminalColumns(w) > 0}
}

// start prints the step's line and begins its bar; the previous step's bar
// ends first.
func (s *stepProgress) start(repeat, index, users int, rampup, duration time.Duration, line string) {
	s.finish()
	fmt.Fprintln(s.w, line)
	s.mu.Lock()
	defer s.mu.Unlock()
	label := fmt.Sprintf("step %d/%d", index+1, s.steps)
	if s.repeats > 1 {
		label = fmt.Sprintf("repeat %d/%d · %s", repeat, s.repeats, label)
	}
	s.dmu.Lock()
	s.label, s.live = label, driver.Progress{Users: users, Phase: rampup}
	s.dmu.Unlock()
	s.lastLine = time.Now()
	if s.tty {
		s.p = mpb.New(mpb.WithOutput(s.w), mpb.WithWidth(24), mpb.WithRefreshRate(time.Second))
		s.total = int64((rampup + duration) / time.Millisecond)
		s.bar = s.p.New(s.total, mpb.BarStyle(),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return s.head() }, decor.WC{W: 1})),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return s.figures() }, decor.WC{W: 1})))
	}
}

// update takes the live figures of the running step.
func (s *stepProgress) update(p driver.Progress, rampup time.Duration) {
	s.dmu.Lock()
	s.live = p
	s.dmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bar != nil {
		done := p.Elapsed
		if p.Measuring {
			done += rampup
		}
		s.bar.SetCurrent(int64(done / time.Millisecond))
		return
	}
	if s.interval > 0 && time.Since(s.lastLine) >= s.interval {
		s.lastLine = time.Now()
		fmt.Fprintf(s.w, "%s  %s\n", s.head(), s.figures())
	}
}

// head is the left part of a progress line: the step and its phase.
func (s *stepProgress) head() string {
	s.dmu.Lock()
	defer s.dmu.Unlock()
	phase := "ramp-up"
	if s.live.Measuring {
		phase = "measuring"
	}
	return fmt.Sprintf("%s · %d users · %s %s/%s (%s left)", s.label, s.live.Users, phase,
		s.live.Elapsed.Round(time.Second), s.live.Phase.Round(time.Second), s.live.Remaining().Round(time.Second))
}

// figures is the right part: the live throughput, errors and latency.
func (s *stepProgress) figures() string {
	s.dmu.Lock()
	defer s.dmu.Unlock()
	p95 := "p95 -"
	if s.live.P95 > 0 {
		p95 = fmt.Sprintf("p95 %.1f ms", float64(s.live.P95.Microseconds())/1000)
	}
	if s.tps {
		return fmt.Sprintf("TPS %.1f (last 10 s) · errors %d · %s", s.live.TPM/60, s.live.Errors, p95)
	}
	return fmt.Sprintf("TPM %.0f · NOPM %.0f (last 10 s) · errors %d · %s", s.live.TPM, s.live.NOPM, s.live.Errors, p95)
}

// endBarLocked completes the bar of a step that measured to its end and
// freezes (aborts, keeping the line) the bar of one that ended early.
func (s *stepProgress) endBarLocked() {
	if s.bar == nil {
		return
	}
	s.dmu.Lock()
	done := s.live.Measuring && s.live.Remaining() <= time.Second
	s.dmu.Unlock()
	if done {
		s.bar.SetCurrent(s.total) // a bar with a total completes when it reaches it
	} else {
		s.bar.Abort(false)
	}
	s.bar = nil
}

// finish ends the last bar and waits for the terminal output to settle.
func (s *stepProgress) finish() {
	s.mu.Lock()
	s.endBarLocked()
	p := s.p
	s.p = nil
	s.mu.Unlock()
	if p != nil {
		p.Wait()
	}
}
