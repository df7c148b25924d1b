package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/registry"
)

// engineTargets is the TARGET column of an engine: its --target forms.
func engineTargets(e registry.Engine) string {
	forms := make([]string, 0, len(e.Forms))
	for _, f := range e.Forms {
		s := f.Long
		if f.Managed {
			s += " (managed)"
		}
		forms = append(forms, s)
	}
	return strings.Join(forms, " | ")
}

func newEnginesCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "engines",
		Short:   "List the database engines and their capabilities",
		Example: "  rightsize engines",
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			width := len("TARGET")
			for _, e := range registry.Engines() {
				width = max(width, len(engineTargets(e)))
			}
			fmt.Fprintf(w, "%-9s %-*s %-24s %-7s %s\n", "ENGINE", width, "TARGET", "MODES (DEFAULT FIRST)", "SERVER", "NOTES")
			for _, e := range registry.Engines() {
				modes := make([]string, 0, 2)
				for _, m := range e.Caps.Modes() {
					modes = append(modes, string(m))
				}
				fmt.Fprintf(w, "%-9s %-*s %-24s %-7v %s\n", e.Name, width, engineTargets(e), strings.Join(modes, ", "), e.Caps.Server, e.Note)
			}
			return nil
		},
	}
}
