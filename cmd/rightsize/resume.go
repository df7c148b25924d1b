package main

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// resumeOwnFlags are the flags a resumed sweep or fit does not take from
// its stored runs: where the results go and how they are shown, the
// scenario's own (its values, what to resume), and where the target is
// (stored redacted, and a copy may have moved).
var resumeOwnFlags = map[string]bool{
	"resume": true, "store": true, "json": true, "progress-interval": true, "cpuprofile": true,
	"label": true, "values": true, "predict": true, "dry-run": true,
	"target": true, "data-dir": true, "pg-bin": true,
}

// resumeFlags gives the command the flags its sweep or fit to resume (id
// or label) was measured with, so that the values still to measure
// compare with those stored: every flag the first stored run of it set
// away from its default, and this command line did not give, takes the
// stored value. A flag given with another value is bad input: a sweep's
// values compare only when measured alike. A sweep with no run stored
// keeps the command's flags.
func resumeFlags(cmd *cobra.Command, id string) error {
	stored, err := resumedRunFlags(cmd, id)
	if err != nil || stored == nil {
		return err
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		v, ok := stored[f.Name]
		if err != nil || !ok || resumeOwnFlags[f.Name] {
			return
		}
		switch {
		case f.Changed && f.Value.String() != v:
			err = fmt.Errorf("--%s %s: %s was measured with --%s %s; drop --%s (a resumed sweep measures what is left as it measured the rest)",
				f.Name, f.Value.String(), id, f.Name, shown(v), f.Name)
		case !f.Changed && v != f.DefValue:
			if serr := setStored(cmd.Flags(), f, v); serr != nil {
				err = fmt.Errorf("--resume %s: the stored --%s %s: %w", id, f.Name, v, serr)
			}
		}
	})
	if err != nil {
		return badInput(err)
	}
	return nil
}

// resumedRunFlags are the flags of the first run stored for the sweep or
// fit id, complete or not (nil: none stored yet).
func resumedRunFlags(cmd *cobra.Command, id string) (map[string]string, error) {
	st, err := openStore(cmd)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	sw, err := st.LoadSweep(cmd.Context(), id)
	if err != nil {
		return nil, badInput(fmt.Errorf("--resume: %w", err))
	}
	runs, err := st.ListRuns(cmd.Context())
	if err != nil {
		return nil, fmt.Errorf("--resume %s: list its runs: %w", id, err)
	}
	for _, r := range slices.Backward(runs) { // oldest first
		if r.Flags["sweep"] == sw.ID || r.Flags["fit"] == sw.ID {
			return r.Flags, nil
		}
	}
	return nil, nil
}

// setStored sets f of fs to v as stored, as if given (a list flag's
// "[a,b]" replaces its items).
func setStored(fs *pflag.FlagSet, f *pflag.Flag, v string) error {
	sv, ok := f.Value.(pflag.SliceValue)
	if !ok {
		return fs.Set(f.Name, v)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var items []string
	if inner != "" {
		r := csv.NewReader(strings.NewReader(inner))
		rec, err := r.Read()
		if err != nil {
			return err
		}
		items = rec
	}
	if err := sv.Replace(items); err != nil {
		return err
	}
	f.Changed = true
	return nil
}

// shown is v, or "" quoted when empty.
func shown(v string) string {
	if v == "" {
		return `""`
	}
	return v
}
