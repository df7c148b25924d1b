package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/pgbench/script"
)

// pipelinedTPCB is tpcb-like with its statements in a pipeline.
const pipelinedTPCB = `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
\startpipeline
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
\endpipeline
`

// wire opens PostgreSQL's engine session, the one that pipelines.
func wire(t testing.TB, dsn string) Session { return sessions[1].open(t, dsn) }

// TestPipelineAsPgbench runs tpcb-like in a pipeline for 40 transactions
// here and in pgbench -M PROTOCOL with the same --random-seed, in the
// prepared and extended protocols: the same rows.
func TestPipelineAsPgbench(t *testing.T) {
	pgbench := pgtest.Pgbench(t)
	file := filepath.Join(t.TempDir(), "piped.sql")
	if err := os.WriteFile(file, []byte(pipelinedTPCB), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Protocol{Prepared, Extended} {
		t.Run(p.String(), func(t *testing.T) {
			ours, theirs := tpcbDatabase(t), tpcbDatabase(t)
			const seed, txns = 99, 40
			out, err := exec.Command(pgbench, "-n", "-M", p.String(), "-c", "1", "-j", "1", "-t", fmt.Sprint(txns),
				fmt.Sprintf("--random-seed=%d", seed), "-f", file, theirs).CombinedOutput()
			if err != nil {
				t.Fatalf("pgbench: %v\n%s", err, out)
			}
			c := newClient(t, wire, ours, Config{Scripts: []*script.Script{parse(t, "piped.sql", pipelinedTPCB, 1)}, Scale: 1,
				Seed: Seeds(seed, 1)[0], Protocol: p})
			sameRowsAsPgbench(t, c, txns, ours, theirs)
		})
	}
}

// TestPipelineErrors: an SQL error inside a pipeline is read at
// \endpipeline and counted as an SQL error (the client goes on), its
// transaction rolled back, while a \syncpipeline before it keeps what
// came before; a pipeline left open by a branch is a meta-command's
// error; a session that cannot pipeline is refused.
func TestPipelineErrors(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	queryString(t, dsn, "CREATE TABLE t (x int); SELECT 'ok'")
	for _, c := range []struct {
		name, src string
		rows      string // t's rows after
		fatal     bool
		line      int
	}{
		{"in a transaction", "\\startpipeline\nBEGIN;\nINSERT INTO t VALUES (1);\nSELECT 1/0;\nEND;\n\\endpipeline\n", "0", false, 6},
		{"after a sync", "\\startpipeline\nINSERT INTO t VALUES (2);\n\\syncpipeline\nSELECT 1/0;\nINSERT INTO t VALUES (3);\n\\endpipeline\n", "1", false, 6},
		{"left open", "\\if 1\n\\startpipeline\n\\endif\nINSERT INTO t VALUES (4);\n\\if 0\n\\endpipeline\n\\endif\n", "0", true, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			queryString(t, dsn, "TRUNCATE t; SELECT 'ok'")
			cl := newClient(t, wire, dsn, Config{Scripts: []*script.Script{parse(t, "p.sql", c.src, 1)}, Seed: Seeds(1, 1)[0]})
			o := cl.Run(context.Background())
			var ce *CommandError
			if !errors.As(o.Err, &ce) || ce.Fatal() != c.fatal || ce.Line != c.line {
				t.Fatalf("error %v (%+v): want one at line %d, fatal %v", o.Err, ce, c.line, c.fatal)
			}
			if got := queryString(t, dsn, "SELECT count(*) FROM t"); got != c.rows {
				t.Errorf("%s rows in t, want %s", got, c.rows)
			}
			if o := cl.Run(context.Background()); !c.fatal && !strings.Contains(fmt.Sprint(o.Err), "division by zero") {
				t.Errorf("the next transaction: %v, want the same error again, the session usable", o.Err)
			}
		})
	}
	if _, err := New(sessions[0].open(t, dsn), Config{Scripts: []*script.Script{parse(t, "p.sql", "\\startpipeline\nSELECT 1;\n\\endpipeline\n", 1)}}); !errors.Is(err, errNotPipelined) {
		t.Errorf("a session that cannot pipeline: %v", err)
	}
}
