package registry

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/engine"
)

// prewarmer is an engine.DB that can load its cache ahead of a run
// (engine/postgres: pg_prewarm). admin is a superuser's connection URL to
// the same database where rightsize manages the server, "" otherwise.
type prewarmer interface {
	Prewarm(ctx context.Context, admin string) (engine.Warmed, error)
}

// adminServer is a managed server whose set-up code may log in as its
// administrator (instance.Postgres).
type adminServer interface {
	AdminDSN(database string) string
}

// CheckPrewarm says why run --prewarm cannot load e's cache (nil when it
// can): an engine.ErrCannotPrewarm naming the fix, before any server starts.
func (e Engine) CheckPrewarm() error {
	if e.Prewarm {
		return nil
	}
	return cannotPrewarm(e.Name)
}

func cannotPrewarm(engineName string) error {
	return fmt.Errorf("%w: rightsize prewarms PostgreSQL only (with pg_prewarm), not %s; drop --prewarm, or warm the cache with a longer --rampup",
		engine.ErrCannotPrewarm, engineName)
}

// Prewarm loads the benchmark database into the server's cache, as its
// engine does it (run --prewarm). An engine without a way to, or a server
// without what it needs, is an engine.ErrCannotPrewarm error naming the fix.
func (t *Target) Prewarm(ctx context.Context) (engine.Warmed, error) {
	p, ok := t.DB.(prewarmer)
	if !ok || !t.Registered.Prewarm {
		return engine.Warmed{}, cannotPrewarm(t.Engine())
	}
	admin := ""
	if s, ok := t.Server.(adminServer); ok {
		admin = s.AdminDSN(t.Options.Database)
	}
	return p.Prewarm(ctx, admin)
}
