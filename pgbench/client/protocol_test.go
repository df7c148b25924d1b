package client

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/pgbench/script"
)

func TestParseProtocol(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Protocol
		err  string
	}{
		{"", Prepared, ""},
		{"prepared", Prepared, ""},
		{"extended", Extended, ""},
		{"simple", Simple, ""},
		{"Simple", 0, `unknown protocol "Simple": give prepared, extended, simple (as pgbench -M)`},
		{"binary", 0, `unknown protocol "binary"`},
	} {
		got, err := ParseProtocol(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || got.String() != c.want.String() {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
}

// protocolScript inserts, per transaction, whether the connection holds
// a named statement and the text a --define holding "2+3" became: simple
// writes it into the query (5), extended and prepared bind it as a text
// parameter ("2+3"); only prepared names its statements.
const protocolScript = `SELECT count(*) AS named FROM pg_prepared_statements \gset
INSERT INTO proto_out VALUES (:named > 0, (:expr)::text);
`

// TestProtocolsAsPgbench runs protocolScript for 2 transactions here and
// in pgbench -M PROTOCOL -D expr=2+3, in each protocol and session: the
// rows are pgbench's, and they differ between the protocols as said.
func TestProtocolsAsPgbench(t *testing.T) {
	pgbench := pgtest.Pgbench(t)
	file := filepath.Join(t.TempDir(), "proto.sql")
	if err := os.WriteFile(file, []byte(protocolScript), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[Protocol]string{Prepared: "t 2+3,t 2+3", Extended: "f 2+3,f 2+3", Simple: "f 5,f 5"}
	const rows = `CREATE TABLE IF NOT EXISTS proto_out (named bool, v text); SELECT coalesce(string_agg(format('%s %s', case when named then 't' else 'f' end, v), ','), '') FROM proto_out`
	for _, p := range []Protocol{Prepared, Extended, Simple} {
		t.Run(p.String(), func(t *testing.T) {
			forEachSession(t, func(t *testing.T, open opener) {
				ours, theirs := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
				queryString(t, ours, rows)
				queryString(t, theirs, rows)
				out, err := exec.Command(pgbench, "-n", "-M", p.String(), "-c", "1", "-j", "1", "-t", "2", "-D", "expr=2+3", "-f", file, theirs).CombinedOutput()
				if err != nil {
					t.Fatalf("pgbench -M %s: %v\n%s", p, err, out)
				}
				c := newClient(t, open, ours, Config{Scripts: []*script.Script{parse(t, "proto.sql", protocolScript, 1)},
					Defines: map[string]string{"expr": "2+3"}, Seed: Seeds(1, 1)[0], Protocol: p})
				for range 2 {
					if o := c.Run(context.Background()); o.Err != nil {
						t.Fatalf("%s: %v", p, o.Err)
					}
				}
				a, b := queryString(t, ours, rows), queryString(t, theirs, rows)
				if a != b || a != want[p] {
					t.Errorf("-M %s: ours %q, pgbench %q, want %q", p, a, b, want[p])
				}
			})
		})
	}
}
