package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/store"
)

// reportRecovered writes one line naming the runs and sweeps that opening
// the store marked partial because the rightsize measuring them was killed
// (store.Store.Recovered); nothing when there were none.
func reportRecovered(w io.Writer, st *store.Store) {
	if line := recoveredLine(st.Recovered()); line != "" {
		fmt.Fprintln(w, line)
	}
}

// recoveredLine is reportRecovered's line.
func recoveredLine(orphans []store.Orphan) string {
	if len(orphans) == 0 {
		return ""
	}
	var pids []string
	var what []string
	for _, o := range orphans {
		if pid := fmt.Sprint(o.Owner.PID); !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
		name := o.ID
		if o.Label != "" {
			name += " (" + o.Label + ")"
		}
		if o.Kind == "run" {
			what = append(what, fmt.Sprintf("run %s with %d step(s) stored", name, o.Steps))
		} else {
			what = append(what, fmt.Sprintf("%s sweep %s (continue it with --resume %s)", o.Kind, name, o.ID))
		}
	}
	return fmt.Sprintf("rightsize: the rightsize measuring them was killed (pid %s): marked partial, keeping what was stored: %s",
		strings.Join(pids, ", "), strings.Join(what, "; "))
}
