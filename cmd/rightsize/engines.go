package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/mssql"
	"github.com/rightsize/rightsize/engine/mysql"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/engine/sqlite"
)

// engineInfo describes one engine for the engines command.
type engineInfo struct {
	name, target, note string
	caps               engine.Caps
}

func engineList() []engineInfo {
	return []engineInfo{
		{"postgres", "embedded | postgres://user:pass@host:port/db", "PL/pgSQL procedures, COPY load", postgres.Caps},
		{"mysql", "mariadb (managed) | mysql://user:pass@host:port/db", "MySQL 8 / MariaDB 10.11+: procedures, LOAD DATA LOCAL", mysql.Caps},
		{"sqlite", "sqlite:PATH", "no server, in process; WAL, BEGIN IMMEDIATE", sqlite.Caps},
		{"mssql", "sqlserver://user:pass@host:port?database=db", "T-SQL procedures, bulk copy; SQL Server 2008+ (not verified live)", mssql.Caps},
	}
}

func newEnginesCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "engines",
		Short:   "List the database engines and their capabilities",
		Example: "  rightsize engines",
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%-9s %-52s %-24s %-7s %s\n", "ENGINE", "TARGET", "MODES (DEFAULT FIRST)", "SERVER", "NOTES")
			for _, e := range engineList() {
				modes := make([]string, 0, 2)
				for _, m := range e.caps.Modes() {
					modes = append(modes, string(m))
				}
				fmt.Fprintf(w, "%-9s %-52s %-24s %-7v %s\n", e.name, e.target, strings.Join(modes, ", "), e.caps.Server, e.note)
			}
			return nil
		},
	}
}
