package main

import (
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/internal/yamlfile"
)

// newCostCmd is "rightsize cost FILE [--json]": the cost table of a cost
// file, with price/performance from the runs it links.
func newCostCmd() *cobra.Command {
	var asJSON, presets bool
	cmd := &cobra.Command{
		Use:   "cost FILE",
		Short: "Price configurations from a cost file: hardware, licences, total, savings and $ per NOPM",
		Long: `Read a cost file (YAML: currency, baseline, years, configs with hardware items
and licences) and print per config the hardware subtotal, each licence (cores
raised to the minimum, in whole packs), the total, the savings against the
baseline (amount and %), and each licence's share of hardware + the other
licences. A config with run: (a run id or label in the results store) also
gets its peak and average TPM and NOPM, $ per peak NOPM, $ per peak TPM and
peak NOPM per licensed core. Money is exact decimal arithmetic, rounded to
cents only when printed. --presets lists the licence presets (use: KEY).`,
		Example: `  rightsize cost costs.yaml
  rightsize cost costs.yaml --json
  rightsize cost --presets`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if presets {
				return printPresets(cmd, asJSON)
			}
			if len(args) != 1 {
				return badInput(errors.New("give one cost FILE (see: rightsize cost --help; rightsize cost --presets lists the licence presets)"))
			}
			res, err := evaluateCost(cmd, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return cost.WriteText(cmd.OutOrStdout(), res)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (exact decimal amounts)")
	cmd.Flags().BoolVar(&presets, "presets", false, "list the licence presets a cost file can use")
	return cmd
}

// evaluateCost loads a cost file and evaluates it, reading linked runs
// from the results store; problems in the file are bad input.
func evaluateCost(cmd *cobra.Command, path string) (*cost.Result, error) {
	f, err := cost.Load(path)
	if err != nil {
		return nil, costInputError(err)
	}
	var runs cost.Runs
	for _, c := range f.Configs {
		if c.Run == "" {
			continue
		}
		st, err := openResults(cmd)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s: config %s links run %q: %w", path, c.Name, c.Run, err))
		}
		defer st.Close()
		runs = st
		break
	}
	res, err := cost.Evaluate(cmd.Context(), f, runs)
	if err != nil {
		return nil, costInputError(err)
	}
	return res, nil
}

// costInputError makes problems in a cost or plan file bad input.
func costInputError(err error) error {
	var ye *yamlfile.Error
	var yes yamlfile.Errors
	if errors.As(err, &ye) || errors.As(err, &yes) || errors.Is(err, os.ErrNotExist) {
		return badInput(err)
	}
	return err
}

func printPresets(cmd *cobra.Command, asJSON bool) error {
	ps := cost.Presets()
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), ps)
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "use:\tlicence\tper\tpack\tpack price\tminimum\tcore factor\tsource")
	for _, p := range ps {
		price := p.PackPrice
		if price == "" {
			price = p.Price
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\n", p.Key, p.Name, p.Per, p.Pack, price, p.Minimum, orDashStr(p.CoreFactor), p.Source)
	}
	return tw.Flush()
}

func orDashStr(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
