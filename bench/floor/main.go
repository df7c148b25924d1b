// Command floor measures what a virtual user's round trip costs the driver
// before any TPC-C work: users connections to a PostgreSQL server, each
// repeating one prepared statement that keeps the server busy about as long
// as a procedures-mode transaction (count(*) over generate_series(1, n)),
// through the same socket path as rightsize's virtual users (pgconn to
// connect and prepare, then the hijacked connection with rawsock's Exchange:
// one write and the reply's reads per round trip, GOMAXPROCS fixed as the
// driver's governor starts it). Nothing is generated, encoded beyond the
// one Bind, decoded or recorded.
//
// It prints the round trips per minute and the process's CPU (user+system)
// per round trip over the measured interval, in the columns bench/procedures.sh
// prints a run's TPM and driver µs per transaction: the part of a driver's
// µs per transaction that no driver code can save on that machine (the
// loopback write that wakes the server, the sleep until the reply, the
// read, the Go poller's wake-up).
//
//	go run ./bench/floor -target postgres://... [-users 4] [-rampup 10s] [-duration 60s] [-n 8000]
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/internal/rawsock"
)

const stmt = "rs_floor"

func main() {
	var o options
	flag.StringVar(&o.target, "target", "", "PostgreSQL URL (required)")
	flag.IntVar(&o.users, "users", 4, "connections, each repeating the statement")
	flag.DurationVar(&o.rampup, "rampup", 10*time.Second, "time before the measured interval")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "measured interval")
	flag.IntVar(&o.n, "n", 8000, "rows counted per round trip: the server's work")
	flag.IntVar(&o.procs, "procs", 1, "GOMAXPROCS (the driver's governor starts a step at 1)")
	flag.Parse()
	if o.target == "" || o.users < 1 || o.n < 1 || o.duration <= 0 {
		fmt.Fprintln(os.Stderr, "floor: -target is required, and -users, -n and -duration must be positive (go run ./bench/floor -target postgres://user@host:port/db)")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(o.procs)
	r, err := run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Printf("round trips per minute %.0f, driver µs per round trip %.1f\n", r.perMinute, r.usPer)
}

type options struct {
	target           string
	users, n, procs  int
	rampup, duration time.Duration
}

type result struct{ perMinute, usPer float64 }

// run connects the users, lets them repeat the statement for the ramp-up
// and the measured interval, and measures the latter.
func run(ctx context.Context, o options) (result, error) {
	conns, err := connectAll(ctx, o)
	if err != nil {
		return result{}, err
	}
	defer func() {
		for _, c := range conns {
			_ = c.hc.Conn.Close()
		}
	}()
	var count atomic.Int64
	var stop atomic.Bool
	errs := make(chan error, len(conns))
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			for !stop.Load() {
				if err := c.roundTrip(); err != nil {
					errs <- err
					return
				}
				count.Add(1)
			}
		})
	}
	time.Sleep(o.rampup)
	cpu0, n0, t0 := cpuTime(), count.Load(), time.Now()
	time.Sleep(o.duration)
	cpu, n, el := cpuTime()-cpu0, count.Load()-n0, time.Since(t0)
	stop.Store(true)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return result{}, err
	}
	if n == 0 {
		return result{}, errors.New("no round trip finished in the measured interval")
	}
	return result{float64(n) / el.Minutes(), float64(cpu.Nanoseconds()) / 1e3 / float64(n)}, nil
}

// conn is one user's hijacked connection and its reused buffers.
type conn struct {
	hc *pgconn.HijackedConn
	x  interface {
		Exchange(req, b []byte) (int, error)
	}
	req []byte // Bind, Execute, Sync
	in  []byte
}

func connectAll(ctx context.Context, o options) ([]*conn, error) {
	cfg, err := pgconn.ParseConfig(o.target)
	if err != nil {
		return nil, fmt.Errorf("parse -target: %w", err)
	}
	cfg.DialFunc = rawsock.WrapDial(cfg.DialFunc)
	var conns []*conn
	for i := range o.users {
		c, err := connect(ctx, cfg, o.n)
		if err != nil {
			for _, c := range conns {
				_ = c.hc.Conn.Close()
			}
			return nil, fmt.Errorf("connect user %d: %w", i+1, err)
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func connect(ctx context.Context, cfg *pgconn.Config, n int) (*conn, error) {
	pg, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := pg.Prepare(ctx, stmt, "SELECT count(*) FROM generate_series(1, $1::int)", nil); err != nil {
		pg.Close(ctx)
		return nil, fmt.Errorf("prepare: %w", err)
	}
	hc, err := pg.Hijack()
	if err != nil {
		pg.Close(ctx)
		return nil, err
	}
	x, ok := hc.Conn.(interface {
		Exchange(req, b []byte) (int, error)
	})
	if !ok {
		_ = hc.Conn.Close()
		return nil, errors.New("the connection is not rawsock's (not TCP or a Unix socket?)")
	}
	return &conn{hc: hc, x: x, req: request(n), in: make([]byte, 0, 8192)}, nil
}

// request is Bind (one text parameter, the result binary), Execute and
// Sync of the prepared statement.
func request(n int) []byte {
	p := fmt.Sprint(n)
	be := binary.BigEndian
	b := append([]byte{'B', 0, 0, 0, 0, 0}, stmt...)
	b = append(b, 0)
	b = be.AppendUint16(be.AppendUint16(b, 0), 1) // text parameters; one
	b = append(be.AppendUint32(b, uint32(len(p))), p...)
	b = be.AppendUint16(be.AppendUint16(b, 1), 1) // one result format: binary
	be.PutUint32(b[1:], uint32(len(b)-1))
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // unnamed portal, all rows
	return append(b, 'S', 0, 0, 0, 4)
}

// roundTrip sends the request and reads until ReadyForQuery.
func (c *conn) roundTrip() error {
	k, err := c.x.Exchange(c.req, c.in[:cap(c.in)])
	for {
		if err != nil {
			return err
		}
		c.in = c.in[:k]
		done, err := complete(c.in)
		if done || err != nil {
			return err
		}
		if cap(c.in)-len(c.in) < 4096 {
			c.in = append(c.in, make([]byte, 8192)...)[:len(c.in)]
		}
		var m int
		m, err = c.hc.Conn.Read(c.in[len(c.in):cap(c.in)])
		k = len(c.in) + m
	}
}

// complete reports whether b holds whole messages up to ReadyForQuery, or
// the error the server sent.
func complete(b []byte) (bool, error) {
	for len(b) >= 5 {
		l := int(binary.BigEndian.Uint32(b[1:]))
		if len(b) < 1+l {
			return false, nil
		}
		switch b[0] {
		case 'E':
			return false, fmt.Errorf("server error: %q", b[5:1+l])
		case 'Z':
			return true, nil
		}
		b = b[1+l:]
	}
	return false, nil
}

// cpuTime is the process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
