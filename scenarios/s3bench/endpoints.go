package s3bench

import (
	"context"
	"errors"
	"fmt"
	icebergio "github.com/apache/iceberg-go/io"
	"io"
	"strings"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// Endpoints are the stores one transport run measures, in this order: the
// in-process control store, then an external endpoint.
type Endpoints struct {
	// Control adds the in-process control store; KeepAlive false makes it
	// answer Connection: close (params.endpoint control-close).
	Control, KeepAlive bool
	// Endpoint is an external store, http(s)://host:port; "" for none.
	Endpoint string
	// Suffix is added to every params.endpoint ("+load" under background
	// load).
	Suffix string
}

// RunEndpoints measures base against every store of eps and writes the
// lines to sink. The external endpoint is checked first (reachable, keys
// accepted, bucket there or created), so a dead one fails the run before
// anything is measured; then the plan is said on log (may be nil).
func RunEndpoints(ctx context.Context, base Config, eps Endpoints, sink results.Sink, log io.Writer) error {
	if eps.Endpoint != "" {
		if err := checkEndpoint(ctx, base.S3, eps.Endpoint); err != nil {
			return err
		}
	}
	if log != nil {
		fmt.Fprintf(log, "katbench transport: %s\n", Plan(base, eps))
	}
	if eps.Control {
		ctl, err := s3.StartControl()
		if err != nil {
			return err
		}
		cfg := base
		cfg.S3.Endpoint = ctl.URL()
		cfg.EndpointName = "control" + eps.Suffix
		cfg.StoreInProcess = true
		if !eps.KeepAlive {
			ctl.SetKeepAlive(false)
			cfg.EndpointName = "control-close" + eps.Suffix
		}
		if cfg.S3.AccessKey == "" || cfg.S3.SecretKey == "" {
			cfg.S3.AccessKey, cfg.S3.SecretKey = "control", "control" // it accepts any signature
		}
		err = errors.Join(Run(ctx, cfg, sink), ctl.Close())
		if err != nil {
			return fmt.Errorf("transport bench against the control: %w", err)
		}
	}
	if eps.Endpoint != "" {
		cfg := base
		cfg.S3.Endpoint = eps.Endpoint
		if eps.Suffix != "" {
			ep, err := s3.ParseEndpoint(eps.Endpoint)
			if err != nil {
				return err
			}
			cfg.EndpointName = ep.Host + eps.Suffix
		}
		if err := Run(ctx, cfg, sink); err != nil {
			return fmt.Errorf("transport bench against %s: %w", eps.Endpoint, err)
		}
	}
	return nil
}

// checkEndpoint makes sure the store at endpoint answers, accepts the keys
// and has the bucket (creating it when missing, as the bench would),
// within workspace.CheckTimeout.
func checkEndpoint(ctx context.Context, cfg s3.Config, endpoint string) error {
	fsys, err := s3io.New(map[string]string{
		icebergio.S3EndpointURL:     endpoint,
		icebergio.S3AccessKeyID:     cfg.AccessKey,
		icebergio.S3SecretAccessKey: cfg.SecretKey,
		icebergio.S3Region:          cfg.Region,
		s3io.PropTransport:          string(transport.Baseline()),
		s3io.PropScope:              "s3bench: endpoint check",
	})
	if err != nil {
		return fmt.Errorf("ENDPOINT %s: %w", endpoint, err)
	}
	defer s3io.Release("s3bench: endpoint check")
	cctx, cancel := context.WithTimeout(ctx, workspace.CheckTimeout)
	defer cancel()
	if _, err := fsys.EnsureBucket(cctx, cfg.Bucket); err != nil {
		return fmt.Errorf("ENDPOINT %s (checked before measuring anything): %w", endpoint, err)
	}
	return nil
}

// Plan says what a run of base against eps will measure: cells per
// endpoint, transports, rounds and operations in all.
func Plan(base Config, eps Endpoints) string {
	cells := len(cells(base))
	var names []string
	if eps.Control {
		names = append(names, "the in-process control")
	}
	if eps.Endpoint != "" {
		names = append(names, eps.Endpoint)
	}
	iters := base.Iterations
	if iters == 0 {
		iters = DefaultIterations
	}
	return fmt.Sprintf("plan: %d cells × %d transports against %s, %d rounds each, %d measured operations per cell and transport (%d in all, warm-ups apart)",
		cells, len(base.Transports), strings.Join(names, " and "), base.Rounds, iters, cells*len(base.Transports)*len(names)*iters)
}
