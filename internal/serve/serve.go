// Package serve is the one lifecycle of katbench's catalog fronts
// (catalog/restserver and catalog/grpcfront): open the catalog they serve,
// listen, serve in the background, and stop gracefully within a grace
// period. `katbench serve rest|grpc` ([RESTCommand], [GRPCCommand]: their
// flags and checks) and the in-process `rest` and `grpc` competitors all
// run a front through it.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/nordisk/katbench/catalog"
)

// Grace is how long Stop waits for in-flight requests before a front is
// stopped hard.
const Grace = 10 * time.Second

// Server is a front. Serve blocks serving l until Shutdown and then returns
// nil; Shutdown stops it, waiting for in-flight requests until ctx ends.
// *restserver.Server and *grpcfront.Server are Servers.
type Server interface {
	Serve(l net.Listener) error
	Shutdown(ctx context.Context) error
}

// Running is a Server serving one listener in the background. Stop may be
// called from any goroutine, more than once; every call returns the first
// one's result.
type Running struct {
	srv    Server
	addr   net.Addr
	served chan error // Serve's result, sent once

	once    sync.Once
	stopErr error
}

// Listen listens on addr (host:port; port 0 picks a free one) and serves
// srv there in the background.
func Listen(addr string, srv Server) (*Running, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	r := &Running{srv: srv, addr: l.Addr(), served: make(chan error, 1)}
	go func() { r.served <- srv.Serve(l) }()
	return r, nil
}

// Addr is the address the server listens on (the port chosen, for port 0).
func (r *Running) Addr() net.Addr { return r.addr }

// Stop shuts the server down, waiting up to grace for in-flight requests,
// and returns Shutdown's error joined with Serve's.
func (r *Running) Stop(grace time.Duration) error {
	r.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		r.stopErr = errors.Join(r.srv.Shutdown(ctx), <-r.served)
	})
	return r.stopErr
}

// Until serves until ctx ends (then it calls stopping, if not nil, and
// stops within Grace) or Serve fails on its own (then it returns that
// error).
func (r *Running) Until(ctx context.Context, stopping func()) error {
	select {
	case err := <-r.served:
		r.served <- err // for a later Stop
		return err
	case <-ctx.Done():
	}
	if stopping != nil {
		stopping()
	}
	return r.Stop(Grace)
}

// OpenCatalog opens the embedded catalog a front serves, with opts, in
// opts.Dir or, when that is empty, in a fresh temp dir named after front
// that the returned close function removes after closing the catalog. The
// string is the directory used.
func OpenCatalog(ctx context.Context, front string, opts catalog.Options) (*catalog.Catalog, string, func() error, error) {
	removeDir := func() error { return nil }
	if opts.Dir == "" {
		d, err := os.MkdirTemp("", "katbench-"+front+"-*")
		if err != nil {
			return nil, "", nil, fmt.Errorf("create temp dir: %w", err)
		}
		opts.Dir = d
		removeDir = func() error { return os.RemoveAll(d) }
	}
	cat, err := catalog.Open(ctx, opts)
	if err != nil {
		return nil, "", nil, errors.Join(fmt.Errorf("open catalog in %s: %w", opts.Dir, err), removeDir())
	}
	return cat, opts.Dir, func() error { return errors.Join(cat.Close(), removeDir()) }, nil
}

// ExposedHelp is the paragraph of each front's --help on binding to other
// interfaces than loopback.
const ExposedHelp = `The default --addr listens on loopback (127.0.0.1) only: only this host
can connect. Binding to all interfaces (0.0.0.0 or [::]) or to any
non-loopback address serves every host that can reach this one; without
--credential anyone there can read, change and drop the catalog, so the
server then prints a warning on stderr. There is no TLS: put a TLS proxy in
front of a server reachable over an untrusted network.`

// WarnIfExposed warns on w when a front listens on a non-loopback address
// with auth off. bound is the listener's address (a host name was resolved
// by Listen, so "localhost" counts as loopback).
func WarnIfExposed(w io.Writer, bound net.Addr, auth bool) {
	if auth {
		return
	}
	if ta, ok := bound.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return
	}
	fmt.Fprintf(w, "katbench: WARNING: listening on %s, which is not loopback, with auth off: any host that can reach it can read, change and drop the catalog (use --credential, or --addr 127.0.0.1:PORT)\n", bound)
}

// Front is one front to run with Run.
type Front struct {
	// Name names the temp dir of a catalog without Catalog.Dir.
	Name string
	// Catalog opens the catalog served (see OpenCatalog).
	Catalog catalog.Options
	// Addr is the listen address (host:port).
	Addr string
	// Auth says the front requires credentials: no warning when it is
	// exposed beyond loopback.
	Auth bool
	// New makes the front's server over the opened catalog.
	New func(cat *catalog.Catalog) (Server, error)
	// Banner is the line Log gets once the front listens on addr with its
	// catalog in dir.
	Banner func(addr net.Addr, dir string) string
	// Log gets the banner, the exposure warning and "shutting down".
	Log io.Writer
}

// Run opens f's catalog, serves f on f.Addr until ctx ends (then it stops
// within Grace) or the server fails, and closes the catalog (removing a
// temp dir). Not for concurrent use of one Front's Log by others.
func Run(ctx context.Context, f Front) (err error) {
	cat, dir, closeCat, err := OpenCatalog(ctx, f.Name, f.Catalog)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeCat()) }()
	srv, err := f.New(cat)
	if err != nil {
		return err
	}
	run, err := Listen(f.Addr, srv)
	if err != nil {
		return err
	}
	fmt.Fprintln(f.Log, f.Banner(run.Addr(), dir))
	WarnIfExposed(f.Log, run.Addr(), f.Auth)
	return run.Until(ctx, func() { fmt.Fprintln(f.Log, "katbench: shutting down") })
}
