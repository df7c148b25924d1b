package postgres

import (
	"fmt"
	"strconv"

	"github.com/rightsize/rightsize/engine"
)

// Tuning is how a managed PostgreSQL follows its caps. Half of --memory,
// and at least 64 MiB, is left besides shared_buffers: shared buffers
// are shared memory the kernel cannot reclaim, and each backend needs its
// own few MiB (2 warehouses, 13 users and shared_buffers at three
// quarters of 256M were killed by the limit); the page cache, within the
// same limit, caches the rest of its files. effective_cache_size is set
// to shared_buffers so the planner assumes no more. Parallel workers per
// gather are at most half the cores (none on one core), all parallel
// workers at most the cores.
var Tuning = engine.Tuning{
	Engine:    "postgres",
	Reserve:   64 << 20,
	RestShare: 2,
	Cache: func(n int64) map[string]string {
		kb := fmt.Sprintf("%dkB", n>>10)
		return map[string]string{"shared_buffers": kb, "effective_cache_size": kb}
	},
	Parallelism: func(cores int) map[string]string {
		n := strconv.Itoa
		return map[string]string{
			"max_worker_processes":             n(max(8, cores)),
			"max_parallel_workers":             n(cores),
			"max_parallel_workers_per_gather":  n(cores / 2),
			"max_parallel_maintenance_workers": n(max(1, cores/2)),
		}
	},
}
