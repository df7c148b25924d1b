package worker

import "github.com/rightsize/rightsize/store"

type workerRow struct {
	worker, workers int
	status, fp      string
}

func rows(in []workerRow) []store.Worker {
	out := make([]store.Worker, len(in))
	for i, r := range in {
		out[i] = store.Worker{Worker: r.worker, Workers: r.workers, Status: r.status, Fingerprint: r.fp}
	}
	return out
}
