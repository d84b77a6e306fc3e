package catalog

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	icebergio "github.com/apache/iceberg-go/io"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DBFileName is the name of the bbolt file inside Options.Dir.
const DBFileName = "catalog.db"

// DefaultLockTimeout is how long Open waits for the bbolt file lock when
// Options.LockTimeout is zero.
const DefaultLockTimeout = 2 * time.Second

// Type is what Catalog.CatalogType reports.
const Type icecatalog.Type = "embedded"

// bbolt buckets. namespaces: namespace key → JSON object of properties.
// tables: table key → current metadata location.
var (
	bucketNamespaces = []byte("namespaces")
	bucketTables     = []byte("tables")
)

// Options configure Open. Only Dir is required.
type Options struct {
	// Dir holds the bbolt file (Dir/catalog.db). Open creates it if missing.
	Dir string
	// Warehouse is the root under which table locations are made, as a URI
	// iceberg-go's io understands (file://…, s3://bucket/prefix). Default:
	// file://<Dir>/warehouse.
	Warehouse string
	// Durability is the durability mode; "" means Immediate.
	Durability Durability
	// LockTimeout bounds the wait for the bbolt file lock; default 2s.
	LockTimeout time.Duration
	// IOProps are passed to iceberg-go's io.LoadFS (S3 endpoint, keys, …).
	// They are the whole configuration of the catalog's IO: table
	// properties never add to or override them (see fsFor).
	IOProps iceberg.Properties
	// SyncInterval is the Eventual mode's sync period; default 1s.
	SyncInterval time.Duration
	// AllowedLocations are extra roots (absolute URIs) under which a table
	// or view location may lie besides the warehouse; see CheckLocation.
	AllowedLocations []string
	// MetadataCacheBytes bounds the table metadata kept parsed in memory,
	// counted as the bytes of the metadata JSON files (the parsed form held
	// beside them is not counted and costs a multiple of that). Tables read
	// least recently lose theirs first and read their file again on the
	// next load. Zero or less means DefaultMetadataCacheBytes.
	MetadataCacheBytes int64
	// Flush is how Immediate mode makes a batch's metadata files durable
	// (see Flush); "" means FlushSyncfs. Ignored in the other modes.
	Flush Flush
	// CommitLog makes Immediate mode's groups durable in the commit log
	// (Dir/wal) instead of a synced bbolt commit each: one append and one
	// fdatasync per group, with bbolt checkpointed in the background (see
	// the package documentation). Ignored in the other modes. Whatever
	// this says, Open replays a log it finds.
	CommitLog bool
}

// Catalog is the embedded bbolt Iceberg catalog. It implements
// icecatalog.Catalog and is safe for concurrent use; see the package
// documentation for the concurrency and durability contracts.
type Catalog struct {
	db         *bolt.DB
	path       string
	warehouse  string
	durability Durability
	ioProps    iceberg.Properties

	// whFS is the warehouse's IO, loaded once at Open from ioProps.
	whFS icebergio.IO

	// locations is the rule every written table or view location obeys.
	locations locationPolicy
	// ios holds the IO of each root's "scheme://host" (see fsFor); it is
	// set at Open and never changes.
	ios map[string]rootIO
	// createJSON writes new tables' metadata files (see createTemplates).
	createJSON createTemplates
	// nsProps caches namespaces' properties for creates.
	nsProps nsPropsCache

	// cache bounds the metadata attached to mirror entries.
	cache metaCache

	// wmu serialises every bbolt write transaction with the mirror update
	// that follows it, so the mirror changes in bbolt's commit order.
	wmu    sync.Mutex
	tables mirror

	// gc batches the bbolt writes of concurrent writers (group commit).
	gc groupCommitter
	// serial, set only by tests before any write, commits every write in a
	// bbolt transaction of its own, as before group commit: the A side of
	// the write-path benchmarks.
	serial bool
	// dirs knows which new directories are not durable yet (Immediate).
	dirs dirTracker
	// flusher makes each commit step's files durable (Immediate).
	flusher *flusher
	// syncSteps counts the commit steps that made metadata files durable
	// (statistics); afterSync, set only by tests before any write, sees
	// each step's files once they are durable and before their pointers
	// commit, and can fail the step.
	syncSteps atomic.Uint64
	afterSync func(paths []string) error
	// flushNS and bboltNS add up the wall time commit steps spent making
	// their files durable and in bbolt's Commit (statistics).
	flushNS, bboltNS atomic.Int64
	// walAppendNS and walApplyNS add up the wall time commit steps with
	// the commit log spent appending and flushing their record, and
	// under the writer lock (waiting for it included) checking, applying
	// and publishing their ops (statistics).
	walAppendNS, walApplyNS atomic.Int64
	// commits serialise CommitTable per table.
	commits *commitLocks

	syncer *syncer // Eventual mode only
	// ahead writes the bbolt file's free pages ahead of use (Immediate
	// mode; see prefiller); only under wmu.
	ahead *prefiller

	// The commit log (Options.CommitLog); wal is nil without it. ltx is
	// the bbolt write transaction the logged groups are applied to
	// between checkpoints; ltxSeq the seq of the last group applied to
	// it, ckptSeq the seq the last checkpoint holds; rec collects the
	// changes of the op being applied; walErr, once set, stops every
	// write until a reopen. All under wmu. stepMu is held by a commit
	// step for its whole length, so Close never removes a log that a
	// step is appending to.
	wal             *commitLog
	ltx             *bolt.Tx
	ltxSeq, ckptSeq uint64
	ltxGroups       int
	ltxBytes        uint64
	ckptBytes       uint64 // checkpointBytes, at Open
	rec             *[]walChange
	// nsLogged is set when an op of a logged group changed the namespaces
	// bucket since the last checkpoint (set under wmu before the change
	// reaches ltx, cleared by the checkpoint that commits it): while it is
	// clear, the bbolt file's last commit holds every namespace as ltx
	// does, and readNamespaces reads it without the writer lock.
	nsLogged     atomic.Bool
	walErr       error
	walBuf       []byte
	stepMu       sync.Mutex
	ckpt         *checkpointer
	checkpoints  atomic.Uint64
	checkpointNS atomic.Int64
	recovery     Recovery

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var (
	_ icecatalog.Catalog = (*Catalog)(nil)
	_ icecatalog.Closer  = (*Catalog)(nil)
)

// Open opens (creating if needed) the catalog in opts.Dir. A bbolt file held
// by another process, or by another open Catalog in this process, yields an
// error wrapping ErrLocked after opts.LockTimeout; a Dir that cannot be
// created or written yields an error naming it. Nothing is written when the
// options are invalid.
func Open(ctx context.Context, opts Options) (*Catalog, error) {
	durability, err := ParseDurability(string(opts.Durability))
	if err != nil {
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	flush, err := ParseFlush(string(opts.Flush))
	if err != nil {
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	if opts.Dir == "" {
		return nil, errors.New("open catalog: Options.Dir is empty")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("open catalog: resolve dir %q: %w", opts.Dir, err)
	}
	if opts.Warehouse != "" {
		if _, err := url.Parse(opts.Warehouse); err != nil {
			return nil, fmt.Errorf("open catalog: invalid warehouse %q: %w", opts.Warehouse, err)
		}
	}
	for _, l := range opts.AllowedLocations {
		if err := ValidateLocation(l); err != nil {
			return nil, fmt.Errorf("open catalog: allowed location: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open catalog: create dir %s: %w", dir, err)
	}

	lockTimeout := opts.LockTimeout
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	path := filepath.Join(dir, DBFileName)
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:        lockTimeout,
		NoSync:         durability != Immediate,
		NoGrowSync:     durability != Immediate,
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		// The file is mapped this large from the start, so that a commit
		// that grows it does not remap it (a remap copies every node the
		// write transaction holds and blocks readers meanwhile) until the
		// catalog outgrows it; the mapping is address space, not memory.
		InitialMmapSize: initialMmapSize,
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open catalog %s: %w (gave up after %s)", path, ErrLocked, lockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}

	walDir := filepath.Join(dir, walDirName)
	rc, err := recoverLog(db, walDir)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}

	c := &Catalog{db: db, path: path, durability: durability, ioProps: opts.IOProps, recovery: rc}
	if durability != Immediate {
		flush = FlushSyncfs // nothing is flushed per step
	}
	if c.flusher, err = newFlusher(flush); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	c.gc.commit = c.commitBatch
	if opts.CommitLog && durability == Immediate {
		c.gc.commit = c.commitBatchLog
	}
	c.cache.limit = opts.MetadataCacheBytes
	if c.cache.limit <= 0 {
		c.cache.limit = DefaultMetadataCacheBytes
	}
	c.commits = newCommitLocks()
	if err := c.init(ctx, dir, opts.Warehouse); err != nil {
		_ = db.Close()
		_ = c.flusher.close()
		return nil, err
	}
	if c.locations, err = newLocationPolicy(c.warehouse, opts.AllowedLocations); err != nil {
		_ = db.Close()
		_ = c.flusher.close()
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	if err := c.loadRootIOs(ctx); err != nil {
		_ = db.Close()
		_ = c.flusher.close()
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	if durability == Eventual {
		c.syncer = newSyncer(db, opts.SyncInterval)
	}
	c.ahead = &prefiller{}
	if opts.CommitLog && durability == Immediate {
		if err := c.startLog(walDir); err != nil {
			_ = db.Close()
			_ = c.flusher.close()
			return nil, fmt.Errorf("open catalog: %w", err)
		}
	} else if durability == Immediate {
		c.ahead = newPrefiller(path, db)
	}
	return c, nil
}

// init creates the buckets, sets up the warehouse IO and fills the mirror.
func (c *Catalog) init(ctx context.Context, dir, warehouse string) error {
	pointers := make(map[string]string)
	err := c.db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketNamespaces); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(bucketTables)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			pointers[string(k)] = string(v)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("open catalog %s: %w", c.path, err)
	}
	c.tables.load(pointers)

	if warehouse == "" {
		warehouse = (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "warehouse"))}).String()
	}
	c.warehouse = strings.TrimRight(warehouse, "/")
	c.whFS, err = icebergio.LoadFS(ctx, c.ioProps, c.warehouse)
	if err != nil {
		return fmt.Errorf("open catalog: load IO for warehouse %s: %w", c.warehouse, err)
	}
	return nil
}

// Path is the bbolt file's path.
func (c *Catalog) Path() string { return c.path }

// Warehouse is the warehouse root URI.
func (c *Catalog) Warehouse() string { return c.warehouse }

// Durability is the mode the catalog was opened with.
func (c *Catalog) Durability() Durability { return c.durability }

// FlushMode is how Immediate mode makes commit steps durable (see Flush).
func (c *Catalog) FlushMode() Flush { return c.flusher.mode }

// CatalogType reports Type ("embedded").
func (c *Catalog) CatalogType() icecatalog.Type { return Type }

// Close syncs (in Eventual mode), closes the bbolt file and releases its
// lock. Later calls return the first call's result; every other method
// returns ErrClosed afterwards.
func (c *Catalog) Close() error {
	c.closeOnce.Do(func() {
		if c.ckpt != nil {
			c.ckpt.close()
		}
		c.stepMu.Lock()
		defer c.stepMu.Unlock()
		c.wmu.Lock()
		defer c.wmu.Unlock()
		c.closed.Store(true)
		var errs []error
		if c.wal != nil {
			errs = append(errs, c.closeLog())
		}
		if c.syncer != nil {
			if err := c.syncer.close(); err != nil {
				errs = append(errs, err)
			}
		}
		c.ahead.stop()
		if err := c.db.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", c.path, err))
		}
		if err := c.flusher.close(); err != nil {
			errs = append(errs, fmt.Errorf("close sync roots: %w", err))
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// write runs fn in a bbolt write transaction and, if it commits, runs publish
// (which updates the mirror) before any other writer can start. fn must not
// have side effects outside the transaction and may run more than once; its
// transaction may be shared with other writers' changes (group commit), so
// an error from fn makes the batch rerun without it.
//
// files are the metadata files the change points to that are not durable
// yet (from writeMetadata); they are made durable before fn's change
// commits. The caller still releases them.
func (c *Catalog) write(fn func(tx *bolt.Tx) error, publish func(), files ...*fileSync) error {
	return c.commit(&writeOp{apply: fn, publish: publish, files: files})
}

// commit commits op through the group committer: together with the ops of
// concurrent writers, in one bbolt transaction, with op's own result.
func (c *Catalog) commit(op *writeOp) error {
	if c.closed.Load() {
		return ErrClosed
	}
	if c.serial && c.wal == nil {
		return c.commitSerial(op)
	}
	return c.gc.submit(op)
}

// commitSerial makes op's files durable itself and commits op in a
// transaction of its own under the writer lock.
func (c *Catalog) commitSerial(op *writeOp) error {
	batch := []*writeOp{op}
	if c.syncFiles(batch); op.err != nil {
		return op.err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed.Load() {
		return ErrClosed
	}
	err := c.db.Update(func(tx *bolt.Tx) error {
		if op.check != nil {
			if err := op.check(tx); err != nil {
				return err
			}
		}
		if op.apply != nil {
			return op.apply(tx)
		}
		return nil
	})
	if err == nil && op.publish != nil {
		op.publish()
	}
	return err
}

// tablesFill is how full the tables bucket's pages are packed when a
// commit splits them (bbolt's default is half): creates add keys mostly
// at the end of a namespace's range, and a page left half empty is a
// page more for every later commit or checkpoint to write.
const tablesFill = 0.9

// initialMmapSize is how much of the bbolt file is mapped from the start
// (see Open): 1 GiB where addresses are 64 bits wide; nothing more than
// bbolt's default in a 32-bit process, whose address space it would
// crowd.
const initialMmapSize = (1 << 30) >> (64 - strconv.IntSize)

// beginWrite begins a bbolt write transaction, its tables bucket packed
// to tablesFill.
func (c *Catalog) beginWrite() (*bolt.Tx, error) {
	tx, err := c.db.Begin(true)
	if err != nil {
		return nil, err
	}
	if b := tx.Bucket(bucketTables); b != nil {
		b.FillPercent = tablesFill
	}
	return tx, nil
}

// readNamespaces runs fn, which reads the namespaces bucket only, in a
// bbolt read transaction. With the commit log it takes the writer lock
// (see readLog) only when a namespace changed since the last checkpoint:
// otherwise the bbolt file's last commit, which holds only logged and
// acknowledged groups, has every namespace as the open transaction has
// it, and a create does not queue behind commit steps and checkpoints
// for its namespace's properties.
func (c *Catalog) readNamespaces(fn func(tx *bolt.Tx) error) error {
	if c.closed.Load() {
		return ErrClosed
	}
	if c.wal != nil && !c.nsLogged.Load() {
		return c.db.View(fn)
	}
	return c.read(fn)
}

// read runs fn in a bbolt read transaction.
func (c *Catalog) read(fn func(tx *bolt.Tx) error) error {
	if c.closed.Load() {
		return ErrClosed
	}
	if c.wal != nil {
		return c.readLog(fn)
	}
	return c.db.View(fn)
}
