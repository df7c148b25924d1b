package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/scenario"
)

// quickstartUsers are quickstart's steps; it builds a warehouse per user of
// the largest (a home warehouse each: TPC-C gives a warehouse 10 terminals
// that think between transactions, and users that do not think, sharing a
// warehouse, measure its row locks).
var quickstartUsers = []int{1, 4}

func newQuickstartCmd() *cobra.Command {
	var tf targetFlags
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "Start the embedded PostgreSQL, build 4 warehouses, run 1 and 4 users, check",
		Long: `quickstart shows the whole tool in about two minutes: it starts the embedded
PostgreSQL (downloaded once and cached), builds 4 warehouses, runs 1 and then 4
virtual users for 20 s each after a 10 s ramp-up, checks consistency and prints
the summary. Each user gets a warehouse of its own: without keying and think
times, users sharing a warehouse queue on its warehouse and district rows,
and the figure measures those lock waits rather than the server.`,
		Example: `  rightsize quickstart
  rightsize quickstart --pg-bin /usr/lib/postgresql/15/bin`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			ctx := cmd.Context()
			fmt.Fprintln(cmd.ErrOrStderr(), "starting the embedded PostgreSQL...")
			t, err := tf.open(ctx, true, 2)
			if err != nil {
				return err
			}
			defer t.Close()
			fmt.Fprintf(cmd.ErrOrStderr(), "building %d warehouses: one per user at %d users, so users do not queue on one warehouse's rows\n",
				quickstartUsers[len(quickstartUsers)-1], quickstartUsers[len(quickstartUsers)-1])
			if _, err := buildWith(cmd, t, quickstartUsers[len(quickstartUsers)-1], 2, 1); err != nil {
				return err
			}
			spec := driver.Spec{Rampup: 10 * time.Second, Duration: 20 * time.Second, ReconnectTimeout: driver.DefaultReconnectTimeout}
			rep, err := runWith(cmd, t, scenario.RunOptions{RunSpec: scenario.RunSpec{Spec: spec, Users: quickstartUsers, Repeats: 1},
				Label: "quickstart", Flags: allFlags(cmd)}, false, 10*time.Second, nil)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "consistency:")
			if err := checkWith(cmd, t, false); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "quickstart done in %.0f s; results stored as run %s (label quickstart)\n", time.Since(start).Seconds(), rep.RunID)
			fmt.Fprintln(cmd.OutOrStdout(), "next: rightsize report quickstart   (writes report.html, opens offline)")
			return nil
		},
	}
	tf.register(cmd)
	return cmd
}
