package engine

import "context"

// ScriptSession is one connection that runs pgbench scripts' statements
// (pgbench/client.Session with Close), for engines that run pgbench
// workloads: prepared once by name, executed with text parameters.
type ScriptSession interface {
	Prepare(ctx context.Context, name, sql string) error
	Exec(ctx context.Context, name string, params [][]byte, keep bool) (rows int64, err error)
	Last() (columns []string, row [][]byte)
	InTransaction() bool
	Rollback(ctx context.Context) error
	Close(ctx context.Context) error
}
