package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/store"
)

// newResultsImportCmd is "rightsize results import FILE": bring a spill
// file (what a run measured when its results store could not be written)
// into the store. Other tools' results come in with "rightsize import".
func newResultsImportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE",
		Short: "Store what a run kept in a spill file when its results store could not be written (disk full)",
		Long: `Store the run and steps of a spill file: a run whose results store could not
be written (its disk full) writes what it measured to rightsize-spill-RUN.json
beside the store and says so. Steps already stored are kept; importing twice
adds nothing. HammerDB's results are imported with "rightsize import hammerdb".`,
		Example: `  rightsize results import rightsize-spill-20261128-180102-a1b2c3.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput(fmt.Errorf("give one spill file: rightsize results import rightsize-spill-RUN.json"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sp, err := store.ReadSpill(args[0])
			if err != nil {
				return badInput(err)
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			n, err := st.ImportSpill(cmd.Context(), sp)
			if err != nil {
				return fmt.Errorf("import %s: %w", args[0], err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %s (%s): %d step(s) added from %s\n", sp.Run.ID, sp.Run.Status, n, args[0])
			return nil
		},
	}
}
