package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/registry"
)

// slotCounter is what an engine that limits its connections tells
// (engine/postgres, engine/mysql).
type slotCounter interface {
	ConnectionSlots(ctx context.Context) (engine.Slots, error)
}

// slotSettle is how long a run short of connection slots waits for them,
// reading them every slotPoll: the backends of connections closed a moment
// before (an earlier run's on the same server) hold their slots until they
// have exited, which on a loaded host takes a while (a run measured 8 in
// use where its pool's one was left).
const (
	slotSettle = time.Second
	slotPoll   = 100 * time.Millisecond
)

// ownConnections are the connections a run opens besides its users and the
// pool connection open when the slots are counted: the wait sampler's and
// the WAL position's (walSampler).
const ownConnections = 2

// checkSlots fails (ErrBadOptions) when the largest step's users (or the
// connections they share) and the run's own connections need more
// connection slots than the server has free, naming the setting that gives
// them. Workers of a shared run each count every worker's users against
// the slots the role may use at all, since the others may have connected
// already. A run short of slots reads them again for up to slotSettle
// before it is refused (backends of connections just closed hold theirs
// until they exit). Slots that cannot be read are not checked: connecting
// the users will say what is wrong.
func checkSlots(ctx context.Context, t *registry.Target, o RunOptions, warehouses int) error {
	sc, ok := t.DB.(slotCounter)
	if !ok || len(o.Users) == 0 {
		return nil
	}
	most, what, fewer := slices.Max(o.Users), "users", "run at most %d users"
	if c := driver.PeakConnections(o.Users, o.Connections); c < most {
		most, what, fewer = c, "shared connections", "share at most %d (--connections)"
	}
	var s engine.Slots
	var need, free int
	for start := time.Now(); ; {
		var err error
		if s, err = sc.ConnectionSlots(ctx); err != nil {
			return nil
		}
		need, free = slotNeed(s, most, o.Workers)
		if o.Delivery.Deferred() {
			need += deliveryConnections(warehouses, o.Workers)
		}
		if need <= free {
			return nil
		}
		if time.Since(start) >= slotSettle || driver.Sleep(ctx, slotPoll) != nil {
			break
		}
	}
	raise, fits := s.Max+need-free, max(free-(need-most), 0)
	fix := fmt.Sprintf("raise %s on the server to at least %d, or "+fewer, s.Setting, raise, fits)
	if t.Server != nil {
		fix = fmt.Sprintf("add --set %s=%d, or "+fewer, s.Setting, raise, fits)
	}
	return bad("%d %s need %d connection slots with the run's own, and %s has %d free (%s %d, %d reserved for superusers, %d in use): %s",
		most, what, need, t.Name, free, s.Setting, s.Max, s.Reserved, s.InUse, fix)
}

// slotNeed returns the connection slots a step of most users needs with
// the run's own connections, and those free for it: of a run on its own,
// the slots free now; of a shared run's workers, each with its own pool and
// sampler, all the role may use.
func slotNeed(s engine.Slots, most, workers int) (need, free int) {
	if workers > 0 {
		return most + workers*(ownConnections+1), s.Max - s.Reserved
	}
	return most + ownConnections, s.Free()
}

// deliveryConnections are the delivery workers' connections of a run with
// deferred Delivery: each process runs its own for its slice of the
// warehouses (HomeSlice).
func deliveryConnections(warehouses, workers int) int {
	n := 0
	for i := range max(workers, 1) {
		_, count := HomeSlice(warehouses, i, max(workers, 1))
		n += driver.DeliveryWorkers(count)
	}
	return n
}
