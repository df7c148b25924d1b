package backup_test

import (
	"context"
	"testing"

	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/registry"
)

func TestFromTarget(t *testing.T) {
	srv := backup.Server(t)
	db, err := postgres.Open(context.Background(), srv.DSN("probe"), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tg := &registry.Target{DB: db, Spec: "embedded", Server: srv}
	spec, err := tg.BackupSpec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if spec.Engine() != "postgres" || spec.DSN() != srv.DSN("probe") || spec.PostgresInstance() != srv {
		t.Errorf("%+v", spec)
	}
	tg = &registry.Target{DB: db, Spec: "postgres://u:p@h/db"}
	spec, err = tg.BackupSpec(context.Background())
	if err != nil || spec.DSN() != "postgres://u:p@h/db" || spec.Postgres != nil {
		t.Errorf("%+v %v", spec, err)
	}
}
