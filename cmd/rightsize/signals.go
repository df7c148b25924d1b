package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// errOutputGone is why a run stops when its standard output or error lost
// its reader.
var errOutputGone = errors.New("the output's reader went away (a broken pipe, as `rightsize run | head` makes once head exits)")

// signalContext is the commands' context: cancelled by Ctrl-C or SIGTERM,
// and by a broken pipe on standard output or error (brokenPipes), each of
// which then stops as at Ctrl-C: what was measured is kept, marked
// partial, and no server is left behind.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(ctx)
	end := brokenPipes(func() { cancel(errOutputGone) })
	return ctx, func() {
		end()
		cancel(nil)
		stop()
	}
}
