package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/pgbench/script"
)

// Protocol is how a client sends its SQL commands, as pgbench -M
// (--protocol) chooses.
type Protocol int

// The protocols, named as pgbench names them. Prepared is the zero value:
// what a Config without one runs.
const (
	// Prepared parses each statement once per connection under a name,
	// then binds its variables as parameters on each run.
	Prepared Protocol = iota
	// Extended sends each run's statement unnamed, parsed again every
	// time, its variables bound as parameters.
	Extended
	// Simple sends each run's statement as one query with the variables'
	// values written into its text (an unset one left as :name).
	Simple
)

var protocolNames = []string{"prepared", "extended", "simple"}

// String is the protocol's pgbench name.
func (p Protocol) String() string {
	if p < 0 || int(p) >= len(protocolNames) {
		return fmt.Sprintf("Protocol(%d)", int(p))
	}
	return protocolNames[p]
}

// ParseProtocol reads a pgbench -M name ("" is Prepared).
func ParseProtocol(s string) (Protocol, error) {
	if s == "" {
		return Prepared, nil
	}
	for i, n := range protocolNames {
		if s == n {
			return Protocol(i), nil
		}
	}
	return 0, fmt.Errorf("unknown protocol %q: give %s (as pgbench -M)", s, strings.Join(protocolNames, ", "))
}

// ExtendedSession is a Session that runs a statement unnamed (Parse,
// Bind, Execute and Sync in one message), as pgbench -M extended.
type ExtendedSession interface {
	ExecUnnamed(ctx context.Context, sql string, params [][]byte, keep bool) (rows int64, err error)
}

// SimpleSession is a Session that runs a statement as one simple query,
// as pgbench -M simple; keep is Exec's.
type SimpleSession interface {
	SimpleQuery(ctx context.Context, sql []byte, keep bool) (rows int64, err error)
}

// supports says whether sess can send statements by p.
func supports(sess Session, p Protocol) bool {
	switch p {
	case Extended:
		_, ok := sess.(ExtendedSession)
		return ok
	case Simple:
		_, ok := sess.(SimpleSession)
		return ok
	}
	return p == Prepared
}

// send runs cmd, its variables' text in c.params, by the client's
// protocol; it returns the rows the statement returned.
func (c *Client) send(ctx context.Context, i, pc int, cmd *script.Command, keep bool) (int64, error) {
	switch c.cfg.Protocol {
	case Extended:
		return c.sess.(ExtendedSession).ExecUnnamed(ctx, c.text(cmd), c.params, keep)
	case Simple:
		return c.sess.(SimpleSession).SimpleQuery(ctx, c.substitute(cmd), keep)
	}
	name := c.names[i][pc]
	if !c.prepared[i][pc] {
		if err := c.sess.Prepare(ctx, name, c.text(cmd)); err != nil {
			return 0, err
		}
		c.prepared[i][pc] = true
	}
	return c.sess.Exec(ctx, name, c.params, keep)
}

// substitute is cmd's text with each variable's value written in its
// place, as pgbench -M simple's assignVariables does (an unset variable
// stays :name), in c.query, valid until the next call.
func (c *Client) substitute(cmd *script.Command) []byte {
	q := append(c.query[:0], cmd.Pieces[0]...)
	for k, v := range c.params {
		if v == nil {
			q = append(append(q, ':'), cmd.Params[k]...)
		} else {
			q = append(q, v...)
		}
		q = append(q, cmd.Pieces[k+1]...)
	}
	c.query = q
	return q
}
