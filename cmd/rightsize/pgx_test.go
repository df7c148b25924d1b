package main

import (
	"context"

	"github.com/jackc/pgx/v5"
)

func pgxConnect(dsn string) (*pgx.Conn, error) { return pgx.Connect(context.Background(), dsn) }
