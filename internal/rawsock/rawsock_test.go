//go:build linux

package rawsock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as the delayed echo server of BenchmarkRoundTrip, run in
// a child process so that its own system calls do not count.
func TestMain(m *testing.M) {
	if addr := os.Getenv("RAWSOCK_ECHO_SERVER"); addr != "" {
		serveDelayedEcho(addr)
		return
	}
	os.Exit(m.Run())
}

func serveDelayedEcho(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString(ln.Addr().String() + "\n")
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			buf := make([]byte, 64)
			for {
				n, err := c.Read(buf)
				if err != nil {
					return
				}
				time.Sleep(time.Millisecond) // a database answering in 1 ms
				if _, err := c.Write(buf[:n]); err != nil {
					return
				}
			}
		}()
	}
}

// pair returns a wrapped client and the plain server side of a connection.
func pair(t *testing.T, network string) (client, server net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := WrapDial((&net.Dialer{}).DialContext)(context.Background(), network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*conn); !ok {
		t.Fatalf("Wrap(%T) did not wrap", c)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c, s
}

func TestLargeTransfersBothWays(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			c, s := pair(t, network)
			// 8 MiB is far beyond the socket buffers: writes hit EAGAIN and
			// wait in the poller; reads come back in pieces.
			want := make([]byte, 8<<20)
			for i := range want {
				want[i] = byte(i * 7)
			}
			echoErr := make(chan error, 1)
			go func() { // the server echoes everything back
				_, err := io.CopyN(s, s, int64(len(want)))
				echoErr <- err
			}()
			writeErr := make(chan error, 1)
			go func() {
				n, err := c.Write(want)
				if err == nil && n != len(want) {
					err = errors.New("short write")
				}
				writeErr <- err
			}()
			got := make([]byte, len(want))
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatalf("read back: %v", err)
			}
			if err := <-writeErr; err != nil {
				t.Fatalf("write: %v", err)
			}
			if err := <-echoErr; err != nil {
				t.Fatalf("echo: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("echoed bytes differ")
			}
		})
	}
}

// TestExchange: requests of every size (the large ones do not fit the
// socket buffer, so Write finishes them) get their whole reply, the
// replies coming at once or after a wait, and a deadline ends an exchange
// whose reply does not come.
func TestExchange(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			c, s := pair(t, network)
			x := c.(*conn)
			sizes := []int{1, 100, 4096, 1 << 20, 8 << 20, 10}
			go func() { // reads each request whole, then echoes it, now and then after a pause
				for i, size := range sizes {
					buf := make([]byte, size)
					if _, err := io.ReadFull(s, buf); err != nil {
						return
					}
					if i%2 == 0 {
						time.Sleep(time.Millisecond)
					}
					if _, err := s.Write(buf); err != nil {
						return
					}
				}
			}()
			for _, size := range sizes {
				req := bytes.Repeat([]byte{byte(size)}, size)
				got := make([]byte, 0, size)
				buf := make([]byte, 64<<10)
				n, err := x.Exchange(req, buf)
				for ; err == nil; n, err = c.Read(buf) {
					if got = append(got, buf[:n]...); len(got) >= size {
						break
					}
				}
				if err != nil || !bytes.Equal(got, req) {
					t.Fatalf("exchange of %d bytes: %v, %d bytes back", size, err, len(got))
				}
			}
			s.Close()
			c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err := x.Exchange([]byte("x"), make([]byte, 4)); err == nil {
				t.Fatal("exchange with a closed peer succeeded")
			}
		})
	}
}

func TestExchangeDeadline(t *testing.T) {
	c, _ := pair(t, "tcp")
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := c.(*conn).Exchange([]byte("x"), make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("exchange past the deadline = %v", err)
	}
}

func TestEOFWhenPeerCloses(t *testing.T) {
	c, s := pair(t, "tcp")
	s.Write([]byte("x"))
	s.Close()
	buf := make([]byte, 4)
	if n, err := c.Read(buf); n != 1 || err != nil {
		t.Fatalf("first read = %d, %v; want 1, nil", n, err)
	}
	if _, err := c.Read(buf); err != io.EOF {
		t.Fatalf("read after peer close = %v, want io.EOF", err)
	}
}

func TestDeadlineEndsAWaitingRead(t *testing.T) {
	c, _ := pair(t, "tcp")
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(make([]byte, 4))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline = %v, want a timeout net.Error", err)
	}
	// A deadline set from another goroutine ends a read already waiting
	// (pgx cancels a query that way).
	c.SetReadDeadline(time.Time{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		c.SetDeadline(time.Now())
	}()
	if _, err := c.Read(make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read ended by a concurrent SetDeadline = %v", err)
	}
}

func TestCloseEndsAWaitingRead(t *testing.T) {
	c, _ := pair(t, "unix")
	go func() {
		time.Sleep(50 * time.Millisecond)
		c.Close()
	}()
	if _, err := c.Read(make([]byte, 4)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read ended by Close = %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close = %v, want net.ErrClosed", err)
	}
}

func TestWriteToResetPeerFails(t *testing.T) {
	c, s := pair(t, "tcp")
	s.(*net.TCPConn).SetLinger(0) // close sends RST
	s.Close()
	time.Sleep(20 * time.Millisecond)
	var err error
	for range 100 { // the first write may still be accepted
		if _, err = c.Write([]byte("hello")); err != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) || (errno != syscall.ECONNRESET && errno != syscall.EPIPE) {
		t.Fatalf("write to a reset peer = %v, want ECONNRESET or EPIPE", err)
	}
}

func TestOtherConnsAreLeftAlone(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a {
		t.Fatal("Wrap changed a net.Pipe connection")
	}
}

// BenchmarkRoundTrip measures the client's own CPU per round trip to a
// server (a child process) that answers after 1 ms, through the net package
// and through Wrap, with 1 client and with 4 (which fall into step and then
// share their wake-ups):
//
//	go test -run '^$' -bench RoundTrip ./internal/rawsock
func BenchmarkRoundTrip(b *testing.B) {
	addr := echoServer(b)
	dial := (&net.Dialer{}).DialContext
	for _, tc := range []struct {
		name    string
		dial    DialFunc
		clients int
	}{{"net/clients=1", dial, 1}, {"rawsock/clients=1", WrapDial(dial), 1}, {"net/clients=4", dial, 4}, {"rawsock/clients=4", WrapDial(dial), 4}} {
		b.Run(tc.name, func(b *testing.B) {
			clients := tc.clients
			conns := make([]net.Conn, clients)
			for i := range conns {
				c, err := tc.dial(context.Background(), "tcp", addr)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				conns[i] = c
			}
			before := cpuTime()
			b.ResetTimer()
			done := make(chan error, clients)
			per := b.N/clients + 1
			for _, c := range conns {
				go func() {
					buf := make([]byte, 16)
					for range per {
						if _, err := c.Write(buf); err != nil {
							done <- err
							return
						}
						if _, err := io.ReadFull(c, buf); err != nil {
							done <- err
							return
						}
					}
					done <- nil
				}()
			}
			for range clients {
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(per*clients), "cpu-µs/op")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

// echoServer starts the delayed echo server in a child process (gone when
// the benchmark ends) and returns its address.
func echoServer(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "RAWSOCK_ECHO_SERVER=127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make([]byte, 64)
	n, err := out.Read(line)
	if err != nil {
		b.Fatal(err)
	}
	return string(bytes.TrimSpace(line[:n]))
}
