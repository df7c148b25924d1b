package scenario

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

// prewarm loads t's database into its server's cache (RunOptions.Prewarm).
// A target that cannot is bad options: nothing has been measured yet.
func prewarm(ctx context.Context, t *registry.Target) (*engine.Warmed, error) {
	w, err := t.Prewarm(ctx)
	if errors.Is(err, engine.ErrCannotPrewarm) {
		return nil, bad("--prewarm: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("prewarm the cache of %s: %w", t.Name, err)
	}
	return &w, nil
}

// prewarmEnv records in a run's environment what the prewarm loaded
// (nothing when the run was not prewarmed).
func prewarmEnv(env map[string]string, w *engine.Warmed) {
	if w == nil {
		return
	}
	env[store.EnvPrewarmBlocks] = strconv.FormatInt(w.Blocks, 10)
	env[store.EnvPrewarmBytes] = strconv.FormatInt(w.Bytes, 10)
}
