package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/target"
)

// targetFlags are the flags every command that opens a target shares.
type targetFlags struct {
	spec     string
	pgBin    string
	dataDir  string
	settings []string
}

func (f *targetFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.spec, "target", "t", "embedded", target.Help())
	cmd.Flags().StringVar(&f.pgBin, "pg-bin", "", "use installed PostgreSQL binaries for the embedded target (e.g. /usr/lib/postgresql/15/bin)")
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "data directory of the embedded target (default: under the user's cache directory)")
	cmd.Flags().StringArrayVar(&f.settings, "pg-setting", nil, "server setting of the embedded target, name=value (repeatable)")
}

func (f *targetFlags) open(ctx context.Context, createDB bool, pool int) (*target.Target, error) {
	settings := map[string]string{}
	for _, s := range f.settings {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return nil, badInput(fmt.Errorf("--pg-setting %q: want name=value", s))
		}
		settings[k] = v
	}
	if pool == 0 {
		pool = runtime.NumCPU()
	}
	t, err := target.Open(ctx, f.spec, target.Options{PGBin: f.pgBin, DataDir: f.dataDir, Settings: settings, CreateDB: createDB, PoolSize: pool + 1})
	if err != nil {
		if errors.Is(err, target.ErrBadTarget) {
			return nil, badInput(err)
		}
		return nil, badInput(fmt.Errorf("%w\n  fix: check --target (server running? user, password, database right?)", err))
	}
	return t, nil
}

// readySchema reads the build metadata and turns a missing or incomplete
// schema into a bad-input error that says how to fix it.
func readySchema(ctx context.Context, t *target.Target) (engine.Meta, error) {
	m, err := scenario.ReadySchema(ctx, t)
	if err != nil {
		return m, badInput(err)
	}
	return m, nil
}

// openStore opens the results store named by --store (or RIGHTSIZE_STORE,
// or ./rightsize.db).
func openStore(cmd *cobra.Command) (*store.Store, error) {
	st, err := store.Open(cmd.Context(), storeLocation(cmd))
	if err != nil {
		// pgx lists each connection attempt on its own line: keep one line
		msg := strings.ReplaceAll(err.Error(), "\n\t", "; ")
		return nil, badInput(fmt.Errorf("open the results store: %s", msg))
	}
	return st, nil
}
