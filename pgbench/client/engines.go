package client

import (
	"errors"

	"github.com/rightsize/rightsize/pgbench/script"
)

// qmarker is a Session that prepares statements with ? placeholders
// (MySQL's and SQLite's, engine/sqlsession) rather than $n.
type qmarker interface{ QMark() bool }

// text is the statement of cmd the session prepares.
func (c *Client) text(cmd *script.Command) string {
	if q, ok := c.sess.(qmarker); ok && q.QMark() {
		return cmd.QSQL
	}
	return cmd.SQL
}

// retryableElsewhere says whether another engine's session marked err as
// a deadlock or serialization failure (engine/sqlsession.RetryError).
func retryableElsewhere(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}
