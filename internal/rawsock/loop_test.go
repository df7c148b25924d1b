//go:build linux

package rawsock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// loopPair is a detached client socket and the plain server side.
func loopPair(t *testing.T, network string) (*FDConn, net.Conn) {
	t.Helper()
	c, s := pair(t, network)
	fc, err := Detach(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fc.Close() })
	return fc, s
}

// newTestLoop is a loop, closed when the test ends, with conns added.
func newTestLoop(t *testing.T, conns ...*FDConn) *Loop {
	t.Helper()
	l, err := NewLoop()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for _, c := range conns {
		if err := l.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// echo answers every read on s with the same bytes, after delay.
func echo(s net.Conn, delay time.Duration) {
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if err != nil {
			return
		}
		time.Sleep(delay)
		if _, err := s.Write(buf[:n]); err != nil {
			return
		}
	}
}

// TestLoopExchanges: coroutines of one loop, each on its own socket, do
// round trips (from one byte to replies that come in pieces, now and
// after a wait) and sleep in between; every reply comes back whole to its
// own coroutine, and Run returns once all of them have.
func TestLoopExchanges(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			l := newTestLoop(t)
			var done atomic.Int32
			for u := range 4 {
				fc, s := loopPair(t, network)
				go echo(s, time.Duration(u%2)*time.Millisecond)
				if err := l.Add(fc); err != nil {
					t.Fatal(err)
				}
				l.Go(func() {
					for i, size := range []int{1, 100, 3000, 30000, 10} {
						req := bytes.Repeat([]byte{byte('a' + u), byte(i)}, size)
						got := make([]byte, len(req))
						n, err := fc.Exchange(req, got)
						if err == nil {
							_, err = io.ReadFull(fc, got[n:])
						}
						if err != nil || !bytes.Equal(got, req) {
							t.Errorf("user %d, request %d: %v (reply equal: %v)", u, i, err, bytes.Equal(got, req))
							return
						}
						if err := l.Sleep(context.Background(), time.Millisecond); err != nil {
							t.Errorf("sleep: %v", err)
						}
					}
					done.Add(1)
				})
			}
			ran := make(chan struct{})
			go func() { l.Run(context.Background()); close(ran) }()
			select {
			case <-ran:
			case <-time.After(time.Minute):
				t.Fatal("Run did not return")
			}
			if done.Load() != 4 {
				t.Fatalf("%d of 4 coroutines finished", done.Load())
			}
		})
	}
}

// TestLoopLargeWrite: a request far beyond the socket buffers waits in the
// loop for room to write (the server reads it whole before answering).
func TestLoopLargeWrite(t *testing.T) {
	fc, s := loopPair(t, "tcp")
	l := newTestLoop(t, fc)
	req := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	go func() {
		got := make([]byte, len(req))
		if _, err := io.ReadFull(s, got); err == nil && bytes.Equal(got, req) {
			s.Write([]byte("ok"))
		}
	}()
	var reply []byte
	l.Go(func() {
		b := make([]byte, 2)
		n, err := fc.Exchange(req, b)
		if err == nil {
			_, err = io.ReadFull(fc, b[n:])
		}
		if err != nil {
			t.Errorf("exchange: %v", err)
		}
		reply = b
	})
	l.Run(context.Background())
	if string(reply) != "ok" {
		t.Fatalf("reply %q, want ok", reply)
	}
}

// TestLoopDeadlineAndCancel: a deadline set from another goroutine (as a
// context's watch does) ends a wait whose reply never comes, with
// os.ErrDeadlineExceeded; Run's context ending ends a Sleep and a wait.
func TestLoopDeadlineAndCancel(t *testing.T) {
	fc, _ := loopPair(t, "tcp") // the server never answers
	fc2, _ := loopPair(t, "tcp")
	l := newTestLoop(t, fc, fc2)
	errs := make(chan error, 3)
	l.Go(func() {
		_, err := fc.Exchange([]byte("ping"), make([]byte, 4))
		errs <- err
	})
	l.Go(func() { errs <- l.Sleep(context.Background(), time.Hour) })
	l.Go(func() {
		_, err := fc2.Read(make([]byte, 4))
		errs <- err
	})
	cancel, ran := runLoop(l)
	fc.SetDeadline(time.Unix(1, 0))
	if err := recvErr(t, errs, "a deadline in the past did not end the wait"); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the exchange past its deadline: %v, want a deadline error", err)
	}
	cancel()
	for range 2 {
		if recvErr(t, errs, "Run's context did not end the sleep and the wait") == nil {
			t.Fatal("a wait ended by Run's context returned no error")
		}
	}
	<-ran
}

// runLoop runs l on a goroutine of its own until cancel, ran closed when
// Run returns; it lets the coroutines reach their waits first.
func runLoop(l *Loop) (cancel func(), ran <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	time.Sleep(20 * time.Millisecond)
	return cancel, done
}

// recvErr is the next error on errs, failing the test with stuck when
// none comes within 10 s.
func recvErr(t *testing.T, errs <-chan error, stuck string) error {
	t.Helper()
	select {
	case err := <-errs:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal(stuck)
		return nil
	}
}

// TestLoopUntimedWait: a loop whose only coroutine waits for a socket
// that never answers, with no deadline and no sleeper, waits without a
// timeout; a garbage collection (which stops the world, so must preempt
// the loop's goroutine through a signal) and then Run's context still
// reach it.
func TestLoopUntimedWait(t *testing.T) {
	fc, _ := loopPair(t, "tcp")
	l := newTestLoop(t, fc)
	if got := l.timeout(); got != -1 {
		t.Fatalf("timeout with nothing timed: %d, want -1 (no timeout)", got)
	}
	errs := make(chan error, 1)
	l.Go(func() {
		_, err := fc.Read(make([]byte, 4))
		errs <- err
	})
	cancel, ran := runLoop(l)
	gc := make(chan struct{})
	go func() { runtime.GC(); close(gc) }()
	select {
	case <-gc:
	case <-time.After(10 * time.Second):
		t.Fatal("a garbage collection did not stop the loop's goroutine")
	}
	cancel()
	if recvErr(t, errs, "Run's context did not end an untimed wait") == nil {
		t.Fatal("a wait ended by Run's context returned no error")
	}
	<-ran
}

// TestFDConnOutsideLoop: a detached socket not in a loop waits in poll(2),
// and its deadline still holds.
func TestFDConnOutsideLoop(t *testing.T) {
	fc, s := loopPair(t, "unix")
	go echo(s, 2*time.Millisecond)
	got := make([]byte, 5)
	n, err := fc.Exchange([]byte("hello"), got)
	if err == nil {
		_, err = io.ReadFull(fc, got[n:])
	}
	if err != nil || string(got) != "hello" {
		t.Fatalf("exchange: %q, %v", got, err)
	}
	fc.SetDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := fc.Read(got); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v", err)
	}
}

// BenchmarkLoopRoundTrip is BenchmarkRoundTrip's round trip (the delayed
// echo server in a child process) from a coroutine of a Loop; compare the
// two for the loop's cost per round trip.
func BenchmarkLoopRoundTrip(b *testing.B) {
	addr := echoServer(b)
	c, err := WrapDial((&net.Dialer{}).DialContext)(context.Background(), "tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	fc, err := Detach(c)
	if err != nil {
		b.Fatal(err)
	}
	defer fc.Close()
	l, err := NewLoop()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	if err := l.Add(fc); err != nil {
		b.Fatal(err)
	}
	req, buf := []byte("0123456789abcdef"), make([]byte, 64)
	b.ReportAllocs()
	b.ResetTimer()
	l.Go(func() {
		for range b.N {
			if _, err := fc.Exchange(req, buf); err != nil {
				b.Error(err)
				return
			}
		}
	})
	l.Run(context.Background())
}
