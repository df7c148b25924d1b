package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/engine/postgres"
)

func newEnginesCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "engines",
		Short:   "List the database engines and their capabilities",
		Example: "  rightsize engines",
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%-10s %-30s %-24s %s\n", "engine", "target", "modes (default first)", "server")
			c := postgres.Caps
			fmt.Fprintf(w, "%-10s %-30s %-24v %v\n", "postgres", "embedded | postgres://...", c.Modes(), c.Server)
			return nil
		},
	}
}
