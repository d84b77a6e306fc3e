package dataplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/transport"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// CompetitorSetup is one competitor of a data run, to be opened once per
// transport (see OpenLanes).
type CompetitorSetup struct {
	Factory competitors.Factory
	// Name is the lines' target; Args its arguments (a URL, …).
	Name string
	Args []string
	// Index is its position in the run, so two targets of one name get
	// their own directories.
	Index int
	// Props are client properties (REST competitors); Durability the
	// embedded catalog's mode ("" for its default).
	Props      map[string]string
	Durability string
	// Env is what the environment says about the competitor (see
	// competitors.ReadEnv); zero for nothing.
	Env competitors.Env
}

// OpenLanes starts one competitor of t per transport, each on its own
// warehouse under the store's run root (<root>/<i>-<target>-<transport>)
// with IO properties that pick the transport: the in-process catalogs get
// them as their storage, REST clients as client properties; catalog
// directories go under dir. A transport that falls back to one already
// open is measured once (as the transport bench does), and its fallback is
// said once on log. A file:// store has no transport to compare: one lane.
// closeAll closes every competitor opened; on error they are closed
// already.
func OpenLanes(ctx context.Context, t CompetitorSetup, kinds []transport.Kind, store *workspace.Store, dir string, log io.Writer) (lanes []Lane, closeAll func() error, err error) {
	var opened []competitors.Competitor
	closeOpened := func() error {
		var errs []error
		for _, c := range opened {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	closeAll = closeOpened
	defer func() {
		if err != nil {
			// The error returns set closeAll to nil: close what was
			// opened through the function itself.
			err = errors.Join(err, closeOpened())
		}
	}()
	if !store.Root.S3 {
		kinds = kinds[:1]
	}
	used := map[transport.Kind]bool{}
	for _, k := range kinds {
		lane := Lane{Target: t.Name}
		sub := fmt.Sprintf("%d-%s", t.Index, t.Name)
		storage := competitors.Storage{Params: map[string]any{"warehouse": store.Root.Shown(), "store": store.Kind()}}
		if ep := store.EndpointShown(); ep != "" {
			storage.Params["endpoint"] = ep
		}
		if store.Root.S3 {
			fsys, err := s3io.New(store.IOProps(k))
			if err != nil {
				return nil, nil, err
			}
			u, fallback := fsys.Transport()
			if fallback != "" && log != nil {
				fmt.Fprintf(log, "katbench: warning: transport %s unavailable for %s, using %s: %s\n", k, store.Name(), u, fallback)
			}
			if used[u] {
				continue
			}
			used[u] = true
			lane.Transport, lane.Requested, lane.Fallback = string(u), string(k), fallback
			lane.Facts = fsys.Facts
			sub += "-" + lane.Transport
			storage.IOProps = store.IOProps(k)
			storage.Params["transport"] = string(u)
			if fallback != "" {
				storage.Params["transport_fallback"] = fallback
			}
			if store.InProcess() {
				// Its objects are in this process's memory, and so in peak_rss_mib.
				storage.Params["s3_store"] = "in-process control"
			}
			// Every table of the lane lives under the run's root, whatever
			// catalog holds it, so removing the root removes the run.
			lane.Location = store.Root.Sub(sub)
		}
		storage.Warehouse = store.Root.Sub(sub)
		cdir := filepath.Join(dir, sub)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create %s: %w", cdir, err)
		}
		p := maps.Clone(t.Props)
		if p == nil {
			p = map[string]string{}
		}
		maps.Copy(p, store.IOProps(k))
		c, err := t.Factory.New(ctx, competitors.Config{
			Args: t.Args, Dir: cdir, Durability: t.Durability, Props: p, Log: log, Storage: storage, Env: t.Env,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		opened = append(opened, c)
		lane.Catalog = c.Catalog()
		lane.Params = results.RedactParams(c.Params())
		lanes = append(lanes, lane)
	}
	return lanes, closeAll, nil
}

// SkippedParams are the params of the lines of a target that could not
// start on store.
func SkippedParams(store *workspace.Store, quick bool) map[string]any {
	p := map[string]any{"warehouse": store.Root.Shown(), "quick": quick, "store": store.Kind()}
	if ep := store.EndpointShown(); ep != "" {
		p["endpoint"] = ep
	}
	return p
}

// RunAll runs cfg on every target in turn, each on one lane per
// transport of kinds (OpenLanes), then cfg.Baseline when set and
// selected (RawName): one data run. A target that cannot start gets a skipped line per scenario saying
// why, and the others still run; every error is returned, joined.
func RunAll(ctx context.Context, cfg Config, targets []CompetitorSetup, kinds []transport.Kind, store *workspace.Store, dir string, sink results.Sink) error {
	var errs []error
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		lanes, closeLanes, err := OpenLanes(ctx, t, kinds, store, dir, cfg.Log)
		if err != nil {
			for _, name := range Recorded(cfg) {
				r := cfg.Run.Skipped(t.Name, name, err.Error(), SkippedParams(store, cfg.Quick))
				stamp(&r, cfg)
				if werr := sink.Write(r); werr != nil {
					return werr
				}
			}
			errs = append(errs, err)
			continue
		}
		errs = append(errs, Run(ctx, cfg, lanes, sink), closeLanes())
	}
	if cfg.Baseline != nil && cfg.selects(RawName) && ctx.Err() == nil {
		errs = append(errs, cfg.Baseline.Measure(ctx, sink))
	}
	return errors.Join(errs...)
}
