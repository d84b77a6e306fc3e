package commitcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// runWriterKills runs every cell on a competitor whose state is its
// directory with the writers in child processes (WritersArgv), killed
// about every KillEvery and restarted on the same files; the catalog is
// opened in this process only before a cell (to create its tables) and
// after it (to check it), never while a child has it open.
func (c Cells) runWriterKills(ctx context.Context, run *results.Run, name string, fac competitors.Factory, cfg competitors.Config,
	summary, log io.Writer, lines results.Sink) (anomalies int, err error) {
	if len(c.WritersArgv) == 0 {
		return 0, errors.New("--kill-every on " + name + ": no katbench executable to run the writers from")
	}
	if c.Commits > 0 || c.NoMarkers {
		return 0, fmt.Errorf("%w: --kill-every on %s runs for --duration, with markers", ErrSettings, name)
	}
	open := func() (competitors.Competitor, error) {
		comp, err := fac.New(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		return comp, nil
	}
	err = c.eachStorm(run, func(s Storm, cell uint64) error {
		comp, err := open()
		if err != nil {
			return err
		}
		s.Catalog = comp.Catalog()
		params := maps.Clone(comp.Params())
		if err := errors.Join(s.Setup(ctx), comp.Close()); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		res, kills, err := c.writerKills(ctx, s, name, cfg, c.Seed+cell, log)
		params["kill_every"], params["kill_seed"], params["kills"], params["killed"] = c.KillEvery.String(), c.Seed+cell, kills, "writers"
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if comp, err = open(); err != nil {
			return err
		}
		rep, err := Check(ctx, comp.Catalog(), s.Idents(), res.Log.Attempts())
		if err = errors.Join(err, comp.Close()); err != nil {
			return err
		}
		anomalies += rep.Errors()
		line := s.Line(run, name, res, &rep, params)
		Summary(summary, name, s, line, &rep, c.Show)
		return lines.Write(line)
	})
	return anomalies, err
}

// writerKills runs s's writers as child processes until its Duration has
// passed, killing them about every c.KillEvery (seeded by seed) and
// starting the next generation at once, and returns every attempt the
// children reported and how often they were killed.
func (c Cells) writerKills(ctx context.Context, s Storm, name string, cfg competitors.Config, seed uint64, log io.Writer) (Result, int, error) {
	start := time.Now()
	until := start.Add(s.Duration)
	spec := ChildSpec{Competitor: name, Dir: cfg.Dir, Durability: cfg.Durability, Namespace: s.Namespace, Prefix: s.Prefix,
		Tables: s.Tables, Writers: s.Writers, Until: until, Retries: s.Retries, Backoff: s.Backoff}
	cw := &ChildWriters{Stderr: log, Argv: func(g int) []string {
		sp := spec
		sp.Markers = fmt.Sprintf("%s_g%d", s.Prefix, g)
		return ChildArgv(c.WritersArgv, sp)
	}}
	if err := cw.Start(ctx); err != nil {
		return Result{}, 0, err
	}
	kctx, cancel := context.WithDeadline(ctx, until)
	kills, kerr := Kills(kctx, cw, c.KillEvery, seed)
	cancel()
	werr := cw.Wait()
	if err := errors.Join(ctx.Err(), kerr, werr); err != nil {
		return Result{}, kills, err
	}
	log2 := &Log{}
	rec := results.NewRecorder()
	for _, a := range cw.Attempts() {
		log2.Add(a)
		if a.Outcome == Acked {
			rec.Record(a.Latency)
		} else {
			rec.Error()
		}
	}
	return Result{Log: log2, Elapsed: time.Since(start), Acked: rec}, kills, nil
}
