package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves a Live's metrics on /metrics.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Serve listens on addr (":9464", "127.0.0.1:0") and serves live's
// metrics, with the Go runtime's and the process's own, until Close.
func Serve(addr string, live *Live) (*Server, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(live); err != nil {
		return nil, fmt.Errorf("register the live metrics: %w", err)
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w (choose a free port, e.g. --metrics-addr :9464)", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return s, nil
}

// Addr is the address the server listens on (the port chosen for ":0").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops serving, waiting at most a second for scrapes in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
