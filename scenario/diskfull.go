package scenario

import (
	"errors"
	"fmt"

	"github.com/rightsize/rightsize/diskspace"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/registry"
)

// fullBelow is the free space under which a managed server's file system
// counts as full: PostgreSQL then fails every write that extends a file.
const fullBelow = diskspace.MiB

// serverAlive is a step's ServerAlive for a managed server: its process
// runs, and the file system of its data directory ("": not watched) is
// not full. A server whose disk is full still runs, but every write
// transaction fails ("could not extend file"), which would otherwise be
// measured as a run of errors.
func serverAlive(pid int, dataDir string) func() bool {
	return func() bool {
		if !instance.ProcessRunning(pid) {
			return false
		}
		if dataDir == "" {
			return true
		}
		room, err := diskspace.Of(dataDir)
		return err != nil || room.Free >= fullBelow
	}
}

// lostServer is a run that lost its managed server, with why.
type lostServer struct {
	err    error // driver.ErrServerLost, maybe wrapped
	reason string
}

func (e *lostServer) Error() string { return "lost the database server: " + e.reason }

func (e *lostServer) Unwrap() error { return e.err }

// serverLost gives a run that lost its managed server the reason: the
// server's log (its last PANIC or FATAL line, or its last write that found
// no space) and a full file system. Other errors are left as they are.
func serverLost(t *registry.Target, err error) error {
	if !errors.Is(err, driver.ErrServerLost) || t.Server == nil {
		return err
	}
	reason := t.ServerReason()
	room, rerr := diskspace.Of(t.Server.DataDir())
	if rerr == nil && room.Free < fullBelow && reason == "" {
		reason = fmt.Sprintf("its file system is full (%s)", room)
	}
	if reason == "" {
		return err
	}
	return &lostServer{err: err, reason: reason}
}
