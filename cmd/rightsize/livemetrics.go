package main

import (
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/metrics"
	"github.com/rightsize/rightsize/scenario"
)

// serveMetrics starts the --metrics-addr endpoint (nothing when addr is
// empty) and feeds it from o's step hooks, keeping hooks already set. The
// returned stop ends the server.
func serveMetrics(o *scenario.RunOptions, addr, worker string) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	live := metrics.New(worker)
	live.Plan(len(o.Users), o.Repeats)
	srv, err := metrics.Serve(addr, live)
	if err != nil {
		return nil, badInput(err)
	}
	prevStart, prevProgress := o.OnStepStart, o.OnProgress
	o.OnStepStart = func(repeat, index, users int, mode engine.Mode) {
		live.StepStart(repeat, index, users)
		if prevStart != nil {
			prevStart(repeat, index, users, mode)
		}
	}
	o.OnProgress = func(repeat, index int, p driver.Progress) {
		live.Progress(repeat, index, p)
		if prevProgress != nil {
			prevProgress(repeat, index, p)
		}
	}
	return func() { live.StepEnd(); _ = srv.Close() }, nil
}
