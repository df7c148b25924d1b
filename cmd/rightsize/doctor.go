package main

import (
	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/doctor"
)

func newDoctorCmd() *cobra.Command {
	var dataDir string
	var asJSON bool
	var cgroupParent string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what this machine allows: cgroups and controllers, each cap (--cpus, --memory, --io-limit ...), engines, fio, free space, identity",
		Example: `  rightsize doctor
  rightsize doctor --data-dir /mnt/nvme/pg --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := doctor.Check(cmd.Context(), dataDir, cgroupParent)
			if asJSON {
				return printJSON(cmd, r)
			}
			doctor.WriteText(cmd.OutOrStdout(), r)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "data directory whose device and free space to check (default: the cache directory)")
	cmd.Flags().StringVar(&cgroupParent, "cgroup-parent", "", "try the caps in groups under this cgroup, as run --cgroup-parent would")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
