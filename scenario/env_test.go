package scenario

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rightsize/rightsize/engine/sqlite"
	"github.com/rightsize/rightsize/store"
)

// A run on an engine registered as running inside the driver's process
// (engine.Caps.Server false: SQLite) is marked so in its environment; the
// report words its driver CPU from that.
func TestEnvironmentInProcess(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	env := Environment(ctx, db, "test", "")
	if r := (store.Run{Env: env}); !r.EngineInProcess() || env["engine"] != "sqlite" {
		t.Errorf("environment %v: want engine sqlite marked %s=true", env, store.EnvEngineInProcess)
	}
	if r := (store.Run{Env: Environment(ctx, nil, "test", "")}); r.EngineInProcess() {
		t.Error("a run without an engine is marked in process")
	}
}
