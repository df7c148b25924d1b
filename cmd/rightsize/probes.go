package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/probe/cpu"
	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/store"
)

// newProbesCmd is "rightsize probes": the stored probe results, as
// "results" is for runs.
func newProbesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "probes",
		Short: "List, show, export and delete stored probe results (storage, cpu, backup)",
		Long: `The probes rightsize probe stored in the results store. PROBE is a probe
id, a label (the latest probe with that label, see probe --label) or a
unique prefix of an id; report --probe accepts the same.`,
	}
	cmd.AddCommand(newProbesListCmd(), newProbesShowCmd(), newProbesExportCmd(), newProbesDeleteCmd())
	return cmd
}

// probeItem is a probe in listings: everything but its result.
type probeItem struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Label     string `json:"label,omitempty"`
	Host      string `json:"host,omitempty"`
	CreatedAt string `json:"created_at"`
	Partial   bool   `json:"partial,omitempty"`
}

// probePartial tells whether a stored probe result says it was interrupted.
func probePartial(p store.Probe) bool {
	var r struct {
		Partial bool `json:"partial"`
	}
	return json.Unmarshal(p.Result, &r) == nil && r.Partial
}

func newProbesListCmd() *cobra.Command {
	var kind string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored probes, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch kind {
			case "", store.ProbeStorage, store.ProbeCPU, store.ProbeBackup:
			default:
				return badInput(fmt.Errorf("--kind %q: want %s, %s or %s", kind, store.ProbeStorage, store.ProbeCPU, store.ProbeBackup))
			}
			st, err := openListing(cmd, "probes", asJSON)
			if st == nil {
				return err
			}
			defer st.Close()
			ps, err := st.ListProbes(cmd.Context(), kind)
			if err != nil {
				return err
			}
			items := make([]probeItem, 0, len(ps))
			for _, p := range ps {
				items = append(items, probeItem{ID: p.ID, Kind: p.Kind, Label: p.Label, Host: p.Host,
					CreatedAt: p.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), Partial: probePartial(p)})
			}
			return writeListing(cmd.OutOrStdout(), asJSON, items,
				fmt.Sprintf("no probes in %s (measure with rightsize probe storage, cpu or backup)", st.Location()),
				"ID\tKIND\tLABEL\tHOST\tSTATUS\tCREATED", func(tw io.Writer, i int) {
					it, status := items[i], "complete"
					if it.Partial {
						status = "PARTIAL"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, it.Kind, dash(it.Label), dash(it.Host), status, localTime(ps[i].CreatedAt))
				})
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "only probes of this kind: storage, cpu or backup")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array instead of the table")
	return cmd
}

// oneProbe checks that a command got exactly one PROBE.
func oneProbe(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return badInput(errors.New("give one PROBE: a probe id, label or unique id prefix (rightsize probes list shows them)"))
	}
	return nil
}

// loadProbe loads PROBE from st; unknown or ambiguous is bad input.
func loadProbe(ctx context.Context, st *store.Store, key string) (*store.Probe, error) {
	p, err := st.LoadProbe(ctx, key)
	if err != nil && (errors.Is(err, store.ErrNotFound) || strings.Contains(err.Error(), "ambiguous") || strings.Contains(err.Error(), "empty")) {
		return nil, badInput(err)
	}
	return p, err
}

func newProbesShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show PROBE",
		Short: "Show a stored probe: its table (storage), timings (cpu) or cycles (backup)",
		Args:  oneProbe,
		RunE: onStored(loadProbe, func(cmd *cobra.Command, st *store.Store, p *store.Probe) error {
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), p)
			}
			return printProbe(cmd.OutOrStdout(), p)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the stored probe (its result included) as one JSON document")
	return cmd
}

// printProbe writes a probe's header and its result as the probe command
// printed it.
func printProbe(w io.Writer, p *store.Probe) error {
	fmt.Fprintf(w, "probe %s · %s", p.ID, p.Kind)
	if p.Label != "" {
		fmt.Fprintf(w, " · label %q", p.Label)
	}
	fmt.Fprintf(w, " · host %s · %s\n\n", dash(p.Host), localTime(p.CreatedAt))
	switch p.Kind {
	case store.ProbeStorage:
		var r storageProbeResult
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return fmt.Errorf("probe %s: read the storage result: %w", p.ID, err)
		}
		fmt.Fprintf(w, "path %s · preset %s · engine %s · test file %d bytes\n", r.Path, r.Preset, r.Engine, r.Size)
		storage.FormatTable(w, r.Jobs)
		if r.Partial {
			fmt.Fprintln(w, "PARTIAL: interrupted; the last job may have been cut short")
		}
	case store.ProbeCPU:
		var r cpu.Result
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return fmt.Errorf("probe %s: read the cpu result: %w", p.ID, err)
		}
		cpu.FormatText(w, r)
	case store.ProbeBackup:
		var r backup.Result
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return fmt.Errorf("probe %s: read the backup result: %w", p.ID, err)
		}
		backup.FormatText(w, r)
	default:
		_, err := fmt.Fprintf(w, "%s\n", p.Result)
		return err
	}
	return nil
}

func newProbesExportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export PROBE",
		Short: "Export a stored probe as one JSON document (the one probes show --json prints)",
		Args:  oneProbe,
		Example: `  rightsize probes export nvme > nvme.json
  rightsize probes export nvme -o nvme.json`,
		RunE: onStored(loadProbe, func(cmd *cobra.Command, st *store.Store, p *store.Probe) error {
			if out == "" || out == "-" {
				return writeJSON(cmd.OutOrStdout(), p)
			}
			if err := writeFileAtomic(out, func(f *os.File) error { return writeJSON(f, p) }); err != nil {
				return badInput(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), out)
			return nil
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", `the JSON file to write (default or "-": standard output)`)
	return cmd
}

func newProbesDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete PROBE",
		Short: "Delete a stored probe",
		Args:  oneProbe,
		RunE: onStored(loadProbe, func(cmd *cobra.Command, st *store.Store, p *store.Probe) error {
			if err := st.DeleteProbe(cmd.Context(), p.ID); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted probe %s (%s, label %s)\n", p.ID, p.Kind, dash(p.Label))
			return nil
		}),
	}
}
