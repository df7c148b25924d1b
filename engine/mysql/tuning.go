package mysql

import (
	"strconv"

	"github.com/rightsize/rightsize/engine"
)

// Tuning is how a managed MariaDB follows its caps: InnoDB's buffer pool
// is the whole cache and gets three quarters of --memory (a quarter, and
// at least 128 MiB, is left for the rest); the thread pool and InnoDB's
// I/O threads are sized to the cores.
var Tuning = engine.Tuning{
	Engine:    "mysql",
	Reserve:   128 << 20,
	RestShare: 4,
	Cache: func(n int64) map[string]string {
		return map[string]string{"innodb_buffer_pool_size": strconv.FormatInt(n>>20<<20, 10)}
	},
	Parallelism: func(cores int) map[string]string {
		n := strconv.Itoa
		return map[string]string{
			"thread_pool_size":        n(cores),
			"innodb_read_io_threads":  n(max(1, cores)),
			"innodb_write_io_threads": n(max(1, cores)),
		}
	},
}
