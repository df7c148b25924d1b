// Package loader builds a TPC-C database: it creates the schema, streams the
// generated rows of every table into the engine from parallel loaders
// partitioned by warehouse, then builds indexes, installs procedures and
// gathers statistics.
package loader

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// Config parameterises a build.
type Config struct {
	Warehouses int
	Loaders    int    // parallel loaders (connections)
	Seed       uint64 // data are a pure function of the seed
	Version    string // rightsize version recorded in the metadata
	Observer   Observer
}

// Observer follows a build's progress; every method must be cheap and safe
// for concurrent use. A nil Observer ignores everything.
type Observer interface {
	// Rows reports n more rows loaded into t.
	Rows(t tpcc.Table, n int64)
	// StepDone reports that a post-load step finished.
	StepDone(phase, name string)
}

// Result summarises a finished build.
type Result struct {
	Rows    int64
	Bytes   int64
	Load    time.Duration // generating and copying rows
	Indexes time.Duration
	Total   time.Duration
	Tables  []engine.TableSize
	Meta    engine.Meta
}

// Builder is the part of engine.DB a build needs.
type Builder interface {
	CreateSchema(ctx context.Context) error
	Load(ctx context.Context, t tpcc.Table, rows tpcc.RowSource) (int64, error)
	IndexSteps() []engine.Step
	InstallProcedures(ctx context.Context) error
	Analyze(ctx context.Context) error
	WriteMeta(ctx context.Context, m engine.Meta) error
	TableSizes(ctx context.Context) ([]engine.TableSize, error)
}

// ErrInterrupted wraps the error of a build stopped part-way: the schema is
// incomplete (its metadata says so) and may be dropped or rebuilt.
var ErrInterrupted = errors.New("build interrupted: the schema is incomplete")

type job struct {
	t tpcc.Table
	w int
}

// Build runs a complete build into db.
func Build(ctx context.Context, db Builder, cfg Config) (Result, error) {
	var res Result
	if err := tpcc.ValidateWarehouses(cfg.Warehouses); err != nil {
		return res, err
	}
	if cfg.Loaders < 1 {
		cfg.Loaders = 1
	}
	obs := cfg.Observer
	if obs == nil {
		obs = nopObserver{}
	}
	start := time.Now()
	meta := engine.Meta{
		Format: engine.SchemaFormat, Warehouses: cfg.Warehouses, Seed: cfg.Seed, Constants: tpcc.LoadConstants(cfg.Seed),
		BuiltAt: start.UTC().Truncate(time.Second), Version: cfg.Version,
	}
	if err := db.CreateSchema(ctx); err != nil {
		return res, err
	}
	if err := db.WriteMeta(ctx, meta); err != nil {
		return res, err
	}
	gen := tpcc.GenConfig{Seed: cfg.Seed, LoadTime: meta.BuiltAt, Constants: meta.Constants}

	jobs := loadJobs(cfg.Warehouses)
	var rows atomic.Int64
	err := parallel(ctx, cfg.Loaders, len(jobs), func(ctx context.Context, i int) error {
		j := jobs[i]
		src := &counting{RowSource: tpcc.Generate(gen, j.t, j.w), t: j.t, obs: obs}
		n, err := db.Load(ctx, j.t, src)
		src.flush()
		rows.Add(n)
		if err != nil {
			return fmt.Errorf("load %s for warehouse %d: %w", j.t, j.w, err)
		}
		return nil
	})
	res.Load = time.Since(start)
	if err != nil {
		return res, interrupted(ctx, err)
	}

	t0 := time.Now()
	err = finishSchema(ctx, db, cfg.Loaders, obs)
	res.Indexes = time.Since(t0)
	if err != nil {
		return res, interrupted(ctx, err)
	}
	meta.Complete = true
	if err := db.WriteMeta(ctx, meta); err != nil {
		return res, err
	}
	res.Meta = meta
	res.Rows = rows.Load()
	res.Total = time.Since(start)
	if res.Tables, err = db.TableSizes(ctx); err == nil {
		for _, s := range res.Tables {
			res.Bytes += s.DataBytes + s.IndexBytes
		}
	}
	return res, nil
}

func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %v", ErrInterrupted, ctx.Err())
	}
	return err
}

// parallel runs fn(0..n-1) on k workers and stops at the first error.
func parallel(ctx context.Context, k, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range min(k, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}

// counting reports rows to the observer in batches.
type counting struct {
	tpcc.RowSource
	t       tpcc.Table
	obs     Observer
	pending int64
}

func (c *counting) Next() bool {
	if !c.RowSource.Next() {
		return false
	}
	if c.pending++; c.pending == 4096 {
		c.flush()
	}
	return true
}

func (c *counting) flush() {
	if c.pending > 0 {
		c.obs.Rows(c.t, c.pending)
		c.pending = 0
	}
}

type nopObserver struct{}

func (nopObserver) Rows(tpcc.Table, int64)  {}
func (nopObserver) StepDone(string, string) {}

// loadJobs are the tables to load, one job per table and warehouse (the item
// table once), biggest first so the loaders finish together.
func loadJobs(warehouses int) []job {
	jobs := []job{{tpcc.Item, 0}}
	for w := 1; w <= warehouses; w++ {
		for _, t := range tpcc.Tables {
			if t != tpcc.Item {
				jobs = append(jobs, job{t, w})
			}
		}
	}
	sort.SliceStable(jobs, func(i, j int) bool {
		return tpcc.InitialRows(jobs[i].t, 1) > tpcc.InitialRows(jobs[j].t, 1)
	})
	return jobs
}

// Checkpointer is a Builder that can make what the load wrote durable
// before the indexes are built. PostgreSQL's checkpoint frees the load's
// WAL: without it, pg_wal held the load's WAL while the index builds wrote
// theirs, and a 2-warehouse build on a busy host filled a 480 MB disk its
// bounded WAL should have fitted (TestBuildBoundsItsWAL).
type Checkpointer interface {
	Checkpoint(ctx context.Context) error
}

// finishSchema checkpoints the load (when db is a Checkpointer), builds
// the indexes with loaders workers, then installs the stored procedures
// and analyzes the tables.
func finishSchema(ctx context.Context, db Builder, loaders int, obs Observer) error {
	if c, ok := db.(Checkpointer); ok {
		if err := c.Checkpoint(ctx); err != nil {
			return err
		}
		obs.StepDone("checkpoint", "checkpoint")
	}
	steps := db.IndexSteps()
	err := parallel(ctx, loaders, len(steps), func(ctx context.Context, i int) error {
		if err := steps[i].Run(ctx); err != nil {
			return err
		}
		obs.StepDone("indexes", steps[i].Name)
		return nil
	})
	if err == nil {
		if err = db.InstallProcedures(ctx); err == nil {
			obs.StepDone("procedures", "procedures")
			if err = db.Analyze(ctx); err == nil {
				obs.StepDone("analyze", "analyze")
			}
		}
	}
	return err
}
