package competitors

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
)

// BulkCreator is the capability to create many tables of one schema by a
// path faster than one CreateTable call each: the embedded catalog's
// CreateTables (one sync and one bbolt transaction per chunk of tables),
// which our fronts' child servers reach by loading their store while the
// server is stopped. A growth sweep's setup uses it where a competitor
// has it and CreateTable where not.
//
// CreateTables returns the tables it created, in ids' order, also when it
// stops early with an error; progress, when not nil, is called with the
// number created so far. Not safe for concurrent use with the
// competitor's measured operations: it is for setup.
type BulkCreator interface {
	CreateTables(ctx context.Context, ids []table.Identifier, sc *iceberg.Schema, parallel int, progress func(done int)) ([]table.Identifier, error)
}

var _ BulkCreator = (*catalog.Catalog)(nil)

// childReadyTimeout bounds how long a restarted child server may take to
// answer its first control request.
const childReadyTimeout = time.Minute

// childLoader bulk-loads the catalog of one of our fronts serving as a
// child process: it stops the child, opens its catalog in this process,
// creates the tables with catalog.CreateTables, closes it and starts the
// child again on the same address, so the client's URL stays valid. Not
// safe for concurrent use.
type childLoader struct {
	cfg   Config
	front string
	dur   catalog.Durability
	ch    *childServer
	auth  childAuth // what the child is started with again
	// ready reports whether the restarted server answers (the client's
	// control request); restarted is told the new child's pid.
	ready     func(ctx context.Context) error
	restarted func(pid int)
}

// CreateTables creates ids in the child's catalog with the child stopped.
func (l *childLoader) CreateTables(ctx context.Context, ids []table.Identifier, sc *iceberg.Schema, parallel int, progress func(done int)) ([]table.Identifier, error) {
	if l.ch == nil {
		return nil, fmt.Errorf("%s: the child server is not running", l.front)
	}
	addr := l.ch.addr
	if err := l.ch.stop(); err != nil {
		return nil, fmt.Errorf("%s: stop the server for a bulk load: %w", l.front, err)
	}
	l.ch = nil
	created, err := l.load(ctx, ids, sc, parallel, progress)
	// The server comes back whatever the load did: what it created is in
	// the store, and the dataset counts it.
	ch, serr := startChildAt(context.WithoutCancel(ctx), l.cfg, l.front, addr, l.auth)
	if serr != nil {
		return created, errors.Join(err, fmt.Errorf("%s: restart after the bulk load: %w", l.front, serr))
	}
	l.ch = ch
	l.restarted(ch.pid())
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), childReadyTimeout)
	defer cancel()
	if rerr := pollReady(rctx, l.ready); rerr != nil {
		return created, errors.Join(err, fmt.Errorf("%s: the restarted server does not answer: %w", l.front, rerr))
	}
	return created, err
}

// load opens the stopped child's catalog and creates ids in it.
func (l *childLoader) load(ctx context.Context, ids []table.Identifier, sc *iceberg.Schema, parallel int, progress func(done int)) ([]table.Identifier, error) {
	cat, err := catalog.Open(ctx, catalog.Options{Dir: childDir(l.cfg, l.front), Durability: l.dur})
	if err != nil {
		return nil, fmt.Errorf("%s: open the server's catalog: %w", l.front, err)
	}
	created, err := cat.CreateTables(ctx, ids, sc, parallel, progress)
	return created, errors.Join(err, cat.Close())
}

// stop stops the child, if it runs.
func (l *childLoader) stop() error {
	if l.ch == nil {
		return nil
	}
	return l.ch.stop()
}

// pollReady calls ready until it succeeds or ctx ends, 50 ms apart.
func pollReady(ctx context.Context, ready func(context.Context) error) error {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		err := ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-t.C:
		}
	}
}

// childDir is the catalog directory of front's child server.
func childDir(cfg Config, front string) string { return filepath.Join(cfg.Dir, "server-"+front) }
