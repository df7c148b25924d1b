package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/tpcc"
)

// TestPrewarm: the benchmark role may not create the pg_prewarm extension
// (an ErrCannotPrewarm that names the fix); created by the administrator,
// every table and index is read into shared buffers, and the role then
// prewarms on its own.
func TestPrewarm(t *testing.T) {
	db := built(t)
	ctx := context.Background()
	_, err := db.Prewarm(ctx, "")
	if !errors.Is(err, engine.ErrCannotPrewarm) || !strings.Contains(err.Error(), "CREATE EXTENSION pg_prewarm") {
		t.Fatalf("Prewarm as the benchmark role without the extension: %v; want ErrCannotPrewarm naming CREATE EXTENSION pg_prewarm", err)
	}
	cfg, err := pgx.ParseConfig(db.DSN())
	if err != nil {
		t.Fatal(err)
	}
	sizes, err := db.TableSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var size int64 // tables (their free space and visibility maps too) and indexes
	for _, s := range sizes {
		size += s.DataBytes + s.IndexBytes
	}
	for _, c := range []struct{ name, admin string }{
		{"as the administrator", pgtest.Server(t).AdminDSN(cfg.Database)},
		{"as the benchmark role, the extension made", ""},
	} {
		w, err := db.Prewarm(ctx, c.admin)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Logf("%s: %+v of %d bytes", c.name, w, size)
		if w.Relations <= len(tpcc.Tables) || w.Bytes != w.Blocks*8192 || w.Bytes < size*8/10 || w.Bytes > size {
			t.Errorf("%s: prewarmed %+v; want every table and index (%d bytes with their maps) in 8 KiB blocks", c.name, w, size)
		}
	}
}
