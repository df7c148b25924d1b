// Command storagebench runs a storage probe preset with the builtin engine
// and with fio on the same directory and test file size, prints their
// result tables and compares their IOPS (the target: builtin within 10 % of
// fio). Rounds alternate the engine order so that drift in the device's
// speed does not favour one engine. It is the development tool behind
// bench/storage.sh; the rightsize CLI wires the probe for users.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/rightsize/rightsize/probe/storage"
)

func main() {
	dir := flag.String("dir", "/var/tmp/rightsize-storagebench", "directory to probe (created if missing)")
	size := flag.Int64("size", 1<<30, "test file size in bytes")
	dur := flag.Duration("duration", 20*time.Second, "duration of each job")
	preset := flag.String("preset", "sqlserver", "preset: "+strings.Join(storage.PresetNames(), ", "))
	engineList := flag.String("engines", "fio,builtin", "comma-separated engines to compare")
	rounds := flag.Int("rounds", 1, "rounds; each runs every engine once, in alternating order")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fatal(err)
	}
	jobs, err := storage.Preset(*preset, *dur)
	if err != nil {
		fatal(err)
	}
	engines := strings.Split(*engineList, ",")
	for i := range engines {
		engines[i] = strings.TrimSpace(engines[i])
	}
	// iops[engine][job][round]
	iops := map[string][][]float64{}
	for _, e := range engines {
		iops[e] = make([][]float64, len(jobs))
	}
	for round := 0; round < *rounds; round++ {
		order := slices.Clone(engines)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, e := range order {
			res, err := storage.Run(ctx, storage.Options{Path: *dir, Size: *size, Engine: e}, jobs, func(job string) {
				fmt.Fprintf(os.Stderr, "round %d [%s] %s ...\n", round+1, e, job)
			})
			if round == 0 || err != nil {
				storage.FormatTable(os.Stdout, res)
				fmt.Println()
			}
			if err != nil {
				fatal(err)
			}
			for i, r := range res {
				iops[e][i] = append(iops[e][i], r.Total.IOPS)
				fmt.Printf("round %d %-8s %-28s %10.0f IOPS\n", round+1, e, r.Job.Name, r.Total.IOPS)
			}
		}
	}

	fmt.Printf("\n%-28s", "job (mean over rounds)")
	for _, e := range engines {
		fmt.Printf(" %14s", e+" IOPS")
	}
	ratio := slices.Contains(engines, "fio") && slices.Contains(engines, "builtin")
	if ratio {
		fmt.Printf(" %12s", "builtin/fio")
	}
	fmt.Println()
	for i, j := range jobs {
		fmt.Printf("%-28s", j.Name)
		for _, e := range engines {
			fmt.Printf(" %14.0f", mean(iops[e][i]))
		}
		if ratio {
			if f := mean(iops["fio"][i]); f > 0 {
				fmt.Printf(" %12.3f", mean(iops["builtin"][i])/f)
			}
		}
		fmt.Println()
	}
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "storagebench:", err)
	os.Exit(1)
}
