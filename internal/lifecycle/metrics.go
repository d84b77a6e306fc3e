package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/nordisk/katbench/internal/usage"
)

// ErrSettings is wrapped by ServeMetrics's error for a malformed address:
// the user's input.
var ErrSettings = errors.New("bad command settings")

// ServeMetrics serves h at http://addr/metrics (--metrics-addr) until the
// returned stop is called. A malformed address is ErrSettings; one that
// cannot be bound fails the run before anything is built. The address
// served goes to log.
func ServeMetrics(addr string, h http.Handler, log io.Writer) (stop func(), err error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, usage.Errorf(ErrSettings, "--metrics-addr %q: want HOST:PORT (e.g. 127.0.0.1:9464 or :9464)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(log, "katbench: serving metrics at http://%s/metrics\n", ln.Addr())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
