package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// targetFlags are the flags every command that opens a target shares.
type targetFlags struct {
	spec      string
	pgBin     string
	dataDir   string
	settings  []string
	pgVersion string
	capFlags
	cmd *cobra.Command // where to say what the caps applied
	// users is the largest step's users of the command's runs: a managed
	// server starts with connection slots for them (registry.Options.Connections).
	users int
	// replace empties the embedded target's cluster first (build --replace).
	replace bool
}

// forUsers sizes a managed server's connection slots for the largest of
// the steps users, or the connections they share (0: one per user).
func (f *targetFlags) forUsers(users []int, connections int) {
	if len(users) > 0 {
		f.users = driver.PeakConnections(users, connections)
	}
}

func (f *targetFlags) register(cmd *cobra.Command) {
	f.registerBase(cmd)
	f.capFlags.register(cmd)
}

// registerBase registers the flags that name the target and where its
// server keeps its data, without the caps (fit has caps lists of its own).
func (f *targetFlags) registerBase(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.spec, "target", "t", "embedded", registry.Help())
	cmd.Flags().StringVar(&f.pgBin, "pg-bin", "", "use installed PostgreSQL binaries for the embedded target (e.g. /usr/lib/postgresql/15/bin)")
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "data directory of the embedded target (default: under the user's cache directory)")
	cmd.Flags().StringArrayVar(&f.settings, "set", nil, "server setting of a managed server, name=value (repeatable; --pg-setting is an alias)")
	cmd.Flags().StringVar(&f.pgVersion, "pg-version", "", "PostgreSQL major version of the embedded target (13..17; default 15)")
	f.cmd = cmd
	normalize := cmd.Flags().GetNormalizeFunc()
	cmd.Flags().SetNormalizeFunc(func(fs *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "pg-setting" {
			name = "set"
		}
		return normalize(fs, name)
	})
}

func (f *targetFlags) open(ctx context.Context, createDB bool, pool int) (*registry.Target, error) {
	opt, err := f.options(createDB, pool)
	if err != nil {
		return nil, err
	}
	t, err := registry.Open(ctx, f.spec, opt)
	if err != nil {
		return nil, f.openError(err)
	}
	f.sayCaps(t)
	return t, nil
}

// openError turns an error opening the target into bad input that says
// what to do.
func (f *targetFlags) openError(err error) error {
	if errors.Is(err, registry.ErrBadTarget) || registry.IsBadCaps(err) {
		return badInput(err)
	}
	if registry.Managed(f.spec) {
		return badInput(err) // a managed server's errors say what to do
	}
	if fix := registry.FixFor(f.spec); fix != "" {
		return badInput(fmt.Errorf("%w\n  fix: %s", err, fix))
	}
	return badInput(err) // its error says what is wrong with it
}

// sayCaps prints the caps applied to the target's managed server, if any.
func (f *targetFlags) sayCaps(t *registry.Target) {
	if r, ok := t.CapsReport(); ok && f.cmd != nil {
		fmt.Fprintln(f.cmd.ErrOrStderr(), "caps:", r.Summary())
	}
}

// config is the one configuration the flags describe, with run options
// o, as package execute measures it.
func (f *targetFlags) config(createDB bool, pool int, o scenario.RunOptions) (execute.Config, error) {
	opt, err := f.options(createDB, pool)
	return execute.Config{Spec: f.spec, Target: opt, Run: o}, err
}

// policy is a command's policy (execute.Policy): the database left as it
// is (scenario.Run refuses a missing one: build first), measured again
// when already stored, the target's errors bad input that says what to do.
func (f *targetFlags) policy() execute.Policy {
	return execute.Policy{OpenError: f.openError}
}

// options turns the flags into target options (bad input when they
// cannot be read).
func (f *targetFlags) options(createDB bool, pool int) (registry.Options, error) {
	settings := map[string]string{}
	for _, s := range f.settings {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return registry.Options{}, badInput(fmt.Errorf("--set %q: want name=value", s))
		}
		settings[k] = v
	}
	c, err := f.capFlags.caps()
	if err != nil {
		return registry.Options{}, badInput(err)
	}
	if pool == 0 {
		pool = runtime.NumCPU()
	}
	return registry.Options{PGBin: f.pgBin, DataDir: f.dataDir, Settings: settings, CreateDB: createDB, PoolSize: pool + 1,
		Caps: c, PGVersion: f.pgVersion, Connections: f.users, Replace: f.replace}, nil
}

// readySchema reads the build metadata and turns a missing or incomplete
// schema into a bad-input error that says how to fix it.
func readySchema(ctx context.Context, t *registry.Target) (engine.Meta, error) {
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
	reportRecovered(cmd.ErrOrStderr(), st)
	return st, nil
}
