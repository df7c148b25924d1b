//go:build !linux

package rawsock

import (
	"context"
	"errors"
	"net"
	"time"
)

// Loop is implemented for Linux only: NewLoop fails elsewhere, and the
// driver then runs every user on a goroutine of its own.
type Loop struct{}

// FDConn is implemented for Linux only.
type FDConn struct{ net.Conn }

var errNoLoop = errors.New("rawsock: loops are implemented for Linux only")

// NewLoop fails: loops are implemented for Linux only.
func NewLoop() (*Loop, error) { return nil, errNoLoop }

// Go is never reached (no Loop is made).
func (l *Loop) Go(f func()) {}

// Run is never reached (no Loop is made).
func (l *Loop) Run(ctx context.Context) {}

// Sleep is never reached (no Loop is made).
func (l *Loop) Sleep(ctx context.Context, d time.Duration) error { return errNoLoop }

// Add is never reached (no Loop is made).
func (l *Loop) Add(fc *FDConn) error { return errNoLoop }

// Close is never reached (no Loop is made).
func (l *Loop) Close() error { return nil }

// Detach fails: loops are implemented for Linux only.
func Detach(c net.Conn) (*FDConn, error) { return nil, errNoLoop }

// Exchange is never reached (no FDConn is made).
func (fc *FDConn) Exchange(req, b []byte) (int, error) { return 0, errNoLoop }
