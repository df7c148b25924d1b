package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/pgbench/client"
	"github.com/rightsize/rightsize/pgbench/script"
	"github.com/rightsize/rightsize/pgbench/workload"
	"github.com/rightsize/rightsize/registry"
)

// checkScriptEngine refuses, before any server starts, a pgbench workload
// whose target's engine cannot run one of its meta-commands (or no
// script at all): exit 2, at the command's FILE:LINE:COLUMN.
func checkScriptEngine(cmd *cobra.Command, w *workload.Workload) error {
	spec, err := cmd.Flags().GetString("target")
	if w == nil || err != nil {
		return nil
	}
	e, _, err := registry.EngineOf(spec)
	if err != nil {
		return nil // the target's own error comes when it opens
	}
	if e.Scripts == nil {
		return badInput(fmt.Errorf("--workload: %s runs no pgbench scripts; run them on %s", e.Name, scriptEngines(nil)))
	}
	for _, s := range w.Scripts {
		if err := s.Unsupported(e.Scripts, e.Name); err != nil {
			return badInput(fmt.Errorf("%w; run this script on %s", err, scriptEngines(s)))
		}
	}
	if w.Protocol != client.Prepared && e.Name != "postgres" {
		return badInput(fmt.Errorf("--protocol %s: %s runs a pgbench workload's statements prepared only; drop --protocol, or run it on postgres", w.Protocol, e.Name))
	}
	return nil
}

// scriptEngines names the engines that run scripts, and with s, every
// meta-command of s.
func scriptEngines(s *script.Script) string {
	var names []string
	for _, e := range registry.Engines() {
		if e.Scripts != nil && (s == nil || s.Unsupported(e.Scripts, e.Name) == nil) {
			names = append(names, e.Name)
		}
	}
	return strings.Join(names, ", ")
}

// checkTPCBEngine refuses build --workload tpcb, before any server starts,
// on an engine other than PostgreSQL.
func checkTPCBEngine(spec string) error {
	if e, _, err := registry.EngineOf(spec); err == nil && e.Name != "postgres" {
		return badInput(fmt.Errorf("--workload tpcb builds on PostgreSQL only (this target is %s): create pgbench's tables with build --workload FILE --init init.sql, or use --target embedded", e.Name))
	}
	return nil
}
