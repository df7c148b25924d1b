package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

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
			w := cmd.OutOrStdout()
			st, err := openResults(cmd)
			if errors.Is(err, store.ErrNoStore) {
				if asJSON {
					fmt.Fprintln(w, "[]")
				} else {
					fmt.Fprintf(w, "no probes yet: %v\n", errors.Unwrap(err))
				}
				return nil
			}
			if err != nil {
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
			if asJSON {
				return writeJSON(w, items)
			}
			if len(items) == 0 {
				fmt.Fprintf(w, "no probes in %s (measure with rightsize probe storage, cpu or backup)\n", st.Location())
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tLABEL\tHOST\tSTATUS\tCREATED")
			for i, it := range items {
				status := "complete"
				if it.Partial {
					status = "PARTIAL"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, it.Kind, dash(it.Label), dash(it.Host), status, localTime(ps[i].CreatedAt))
			}
			return tw.Flush()
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

// openProbe opens the store and loads PROBE; the caller closes the store.
func openProbe(cmd *cobra.Command, key string) (*store.Store, *store.Probe, error) {
	st, err := openResults(cmd)
	if err != nil {
		return nil, nil, err
	}
	p, err := st.LoadProbe(cmd.Context(), key)
	if err != nil {
		st.Close()
		if errors.Is(err, store.ErrNotFound) || strings.Contains(err.Error(), "ambiguous") || strings.Contains(err.Error(), "empty") {
			return nil, nil, badInput(err)
		}
		return nil, nil, err
	}
	return st, p, nil
}

func newProbesShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show PROBE",
		Short: "Show a stored probe: its table (storage), timings (cpu) or cycles (backup)",
		Args:  oneProbe,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, p, err := openProbe(cmd, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), p)
			}
			return printProbe(cmd.OutOrStdout(), p)
		},
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
		RunE: func(cmd *cobra.Command, args []string) error {
			st, p, err := openProbe(cmd, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			if out == "" || out == "-" {
				return writeJSON(cmd.OutOrStdout(), p)
			}
			if err := writeFileAtomic(out, func(f *os.File) error { return writeJSON(f, p) }); err != nil {
				return badInput(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", `the JSON file to write (default or "-": standard output)`)
	return cmd
}

func newProbesDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete PROBE",
		Short: "Delete a stored probe",
		Args:  oneProbe,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, p, err := openProbe(cmd, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.DeleteProbe(cmd.Context(), p.ID); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted probe %s (%s, label %s)\n", p.ID, p.Kind, dash(p.Label))
			return nil
		},
	}
}
