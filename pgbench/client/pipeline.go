package client

import (
	"context"
	"errors"

	"github.com/rightsize/rightsize/pgbench/script"
)

// PipelineSession is a Session that pipelines, as pgbench's
// \startpipeline ... \endpipeline: Queue appends a statement's execution
// (the prepared statement name, or with sql the unnamed statement parsed
// from it) without waiting for its result; SyncPipeline appends a
// synchronisation point; EndPipeline sends everything queued with a last
// one, reads every result and returns the first error; DropPipeline
// forgets what is queued (the script stopped inside the pipeline).
type PipelineSession interface {
	Queue(name, sql string, params [][]byte)
	SyncPipeline()
	EndPipeline(ctx context.Context) error
	DropPipeline()
}

// errNotPipelined is a script's pipeline on a session that cannot.
var errNotPipelined = errors.New("this engine's sessions run no pipeline (\\startpipeline): PostgreSQL's do")

// usesPipeline says whether any of scripts has a \startpipeline.
func usesPipeline(scripts []*script.Script) bool {
	for _, s := range scripts {
		for _, c := range s.Commands {
			if c.Kind == script.StartPipeline {
				return true
			}
		}
	}
	return false
}

// pipeline runs the pipeline meta-command cmd at pc of script i: at
// \startpipeline, with the prepared protocol, every statement of the
// script not prepared yet is prepared first, as pgbench does, since
// nothing can be prepared while a pipeline is open.
func (c *Client) pipeline(ctx context.Context, i, pc int, cmd *script.Command) error {
	ps := c.sess.(PipelineSession) // New checked
	switch cmd.Kind {
	case script.StartPipeline:
		if c.piped {
			return errors.New("already in pipeline mode")
		}
		if c.cfg.Protocol == Simple {
			return errors.New("cannot use pipeline mode with the simple query protocol")
		}
		if err := c.prepareAll(ctx, i); err != nil {
			return err
		}
		c.piped = true
	case script.SyncPipeline:
		if !c.piped {
			return errors.New("not in pipeline mode")
		}
		ps.SyncPipeline()
	case script.EndPipeline:
		if !c.piped {
			return errors.New("not in pipeline mode")
		}
		c.piped = false
		if err := ps.EndPipeline(ctx); err != nil {
			return &pipelinedError{err}
		}
	}
	return nil
}

// pipelinedError is the error of a pipeline's statements, read at
// \endpipeline: an SQL error, counted as one (the client goes on).
type pipelinedError struct{ err error }

func (e *pipelinedError) Error() string { return e.err.Error() }
func (e *pipelinedError) Unwrap() error { return e.err }

// isSQLError says whether err, of a command that is not SQL, is its
// statements' (a pipeline's, read at \endpipeline).
func isSQLError(err error) bool {
	var pe *pipelinedError
	return errors.As(err, &pe)
}

// pipelineLeftOpen ends a run of a script that reached its end inside a
// pipeline (a \startpipeline in an \if branch without its end): a
// meta-command's error at its last command, as pgbench aborts the client.
func (c *Client) pipelineLeftOpen() error {
	if !c.piped {
		return nil
	}
	c.dropPipeline()
	return errors.New("end of script reached with pipeline open")
}

// prepareAll prepares script i's statements not prepared yet (the
// prepared protocol only).
func (c *Client) prepareAll(ctx context.Context, i int) error {
	if c.cfg.Protocol != Prepared {
		return nil
	}
	for pc := range c.cfg.Scripts[i].Commands {
		cmd := &c.cfg.Scripts[i].Commands[pc]
		if cmd.Kind != script.SQL || c.prepared[i][pc] {
			continue
		}
		if err := c.sess.Prepare(ctx, c.names[i][pc], c.text(cmd)); err != nil {
			return err
		}
		c.prepared[i][pc] = true
	}
	return nil
}

// queue appends SQL command pc of script i, its parameters in c.params,
// to the open pipeline.
func (c *Client) queue(i, pc int, cmd *script.Command) {
	ps := c.sess.(PipelineSession)
	if c.cfg.Protocol == Extended {
		ps.Queue("", c.text(cmd), c.params)
		return
	}
	ps.Queue(c.names[i][pc], "", c.params)
}

// dropPipeline forgets an open pipeline's queue: the script stopped in it.
func (c *Client) dropPipeline() {
	if c.piped {
		c.sess.(PipelineSession).DropPipeline()
		c.piped = false
	}
}
