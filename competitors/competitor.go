// Package competitors is the registry of everything katbench can benchmark.
//
// Every competitor is an iceberg-go catalog.Catalog. Extra abilities — resolving
// metadata without building a table, a control round trip that measures the
// floor of the path — are optional interfaces found with [As], never by
// switching on a competitor's name.
//
// Implementations register a [Factory] from an init function in their own
// file (embedded.go, sql.go, rest.go, grpc.go, …); the CLI and the scenarios
// only ever see this package's types.
package competitors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nordisk/katbench/internal/registry"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Competitor is one catalog under test. It is safe for concurrent use to the
// extent its Catalog is; all catalogs registered here are.
type Competitor interface {
	// Name is the registry name ("embedded", "rest", …).
	Name() string
	// Catalog is what the scenarios drive.
	Catalog() catalog.Catalog
	// Params are extra facts about this competitor that belong in every
	// result line's params (url, warehouse, durability, …). May be nil.
	Params() map[string]any
	// Close releases everything the factory started (servers, temp dirs).
	Close() error
}

// MetadataResolver is the capability to return a table's current, immutable
// metadata without building a table.Table.
type MetadataResolver interface {
	ResolveMetadata(ctx context.Context, ident table.Identifier) (table.Metadata, error)
}

// Controller is the capability to do one round trip over the competitor's
// path that reaches no catalog logic (REST: GET /v1/config; gRPC: an empty
// unary RPC). Its p50 is the floor every other scenario is compared with.
type Controller interface {
	Control(ctx context.Context) error
}

// As finds capability T on the competitor itself or, failing that, on its
// Catalog.
func As[T any](c Competitor) (T, bool) {
	if v, ok := c.(T); ok {
		return v, true
	}
	v, ok := c.Catalog().(T)
	return v, ok
}

// Config is what a factory gets from the command line and the environment.
type Config struct {
	// Args are the positional arguments that followed the target name
	// (`katbench nessie URL WAREHOUSE`) or came from `name=URL@WAREHOUSE`.
	Args []string
	// Dir is the working directory to create the competitor's files in. The
	// runner creates a fresh temp dir when the user gave none; a factory must
	// never delete a directory it did not create.
	Dir string
	// Durability is the embedded catalog's durability mode ("" = default).
	Durability string
	// Flush is how the embedded catalog (and the file-system floor) makes
	// Immediate writes durable (catalog.Flush; "" = default).
	Flush string
	// CommitLog makes the embedded catalog's Immediate writes go through
	// its commit log (catalog.Options.CommitLog).
	CommitLog bool
	// Props are client properties from --prop k=v and BENCH_REST_PROPS.
	Props map[string]string
	// Log receives warnings (one line each). Never nil when set by the CLI.
	Log io.Writer
	// Storage is where an in-process embedded catalog keeps its warehouse
	// (embedded, and the catalogs behind in-process rest and grpc).
	Storage Storage
	// Env is what the environment says about the competitor (ReadEnv,
	// called by cmd); competitors never read the environment themselves.
	Env Env
	// ServeChild, when set, is the katbench command (the executable and
	// any arguments before `serve`) with which rest and grpc, given no
	// address, run their server as a child process instead of in-process,
	// so the server's cost is measured apart from the client's
	// (server_child.go). Empty runs them in-process.
	ServeChild []string
}

// Storage says where an in-process embedded catalog writes its metadata
// files. The zero value is today's default: file:// under Config.Dir.
type Storage struct {
	// Warehouse is the warehouse URI (file://…, s3://bucket/prefix); ""
	// means file://<Dir>/warehouse.
	Warehouse string
	// IOProps configure the warehouse's IO (S3 endpoint, keys, region,
	// katbench.transport).
	IOProps map[string]string
	// Params go into the params of every result line of a competitor on
	// this storage: warehouse (scheme and bucket only), transport and
	// transport_fallback. Never keys.
	Params map[string]any
}

// Logf writes one warning line to cfg.Log, if any.
func (cfg Config) Logf(format string, args ...any) {
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, format+"\n", args...)
	}
}

// Factory builds a competitor.
type Factory struct {
	Name string
	// Usage is the argument synopsis shown in `katbench list`, e.g. "[URL]".
	Usage string
	// Description is one line for `katbench list`.
	Description string
	// Peer is the competitor shown next to this one when it is run on its
	// own (`katbench embedded` runs sql beside it), so a single command
	// still gives a comparison. Empty for none.
	Peer string
	// FileFloor is the floor that runs beside this competitor when its write
	// scenarios are selected: the one whose files are the ones this
	// competitor writes (FloorName for the embedded catalog). Empty for
	// none.
	FileFloor string
	// Serve is the `katbench serve` subcommand that serves this
	// competitor's catalog from a state directory of its own ("rest",
	// "grpc"):
	// given no arguments, `katbench verify --kill-every` starts that
	// server itself, kills it with SIGKILL and restarts it. Empty for
	// none.
	Serve string
	// ServeArg is the argument that reaches such a server at addr
	// (host:port); nil for a URL, http://addr.
	ServeArg func(addr string) string
	// DirState reports that the competitor's whole state is Config.Dir,
	// which another process can open after this one closed it or died
	// (a catalog on disk, in-process). `katbench verify --kill-every` then
	// runs the writers in a child process on that directory, kills the
	// child with SIGKILL, starts another on the same files, and checks
	// the catalog from a fresh open.
	DirState bool
	// Durability reports whether the factory may honour Config.Durability
	// (`katbench list` shows it). Whether a built competitor really runs in
	// the mode asked for is its [Durable] capability: a remote server
	// reached through the same factory decides its own mode.
	Durability bool
	// Store is what the catalog keeps its state in: one of the Store*
	// constants ("" when it depends on the arguments). Every built
	// competitor's params carry it as "store" unless the competitor reports
	// its own (a server given by URL whose store katbench cannot know).
	Store string
	// Storage reports whether the competitor may keep its tables on
	// Config.Storage (the embedded catalog's --warehouse, --transport and
	// --s3-endpoint); a remote server keeps them where it is configured to.
	Storage bool
	// Props reports whether the competitor reads client properties
	// (Config.Props, --prop).
	Props bool
	// Example is command lines for `katbench NAME --help`, one per line,
	// indented by two spaces.
	Example string
	// Env says which environment variables the competitor reads, for
	// `katbench NAME --help` ("" for none).
	Env string
	// SetupParallel is the most concurrent setup requests (creating and
	// dropping the dataset) the competitor tolerates; 0 means no limit
	// beyond --setup-parallel. A server whose store serialises writers
	// badly (the Apache fixture's SQLite answers SQLITE_BUSY) says so here.
	SetupParallel int
	// CheckArgs validates the positional arguments before anything is
	// created, so a bad command line is a usage error and nothing runs. Nil
	// means the competitor takes no arguments. Use [Factory.Check].
	CheckArgs func(args []string) error
	// New builds the competitor. It must clean up after itself on error.
	New func(ctx context.Context, cfg Config) (Competitor, error)
}

// The stores a competitor's catalog keeps its state in (Factory.Store,
// params.store).
const (
	StoreBbolt      = "bbolt"      // our embedded catalog's file
	StoreSQLite     = "sqlite"     // a SQLite file
	StorePostgreSQL = "postgresql" // a PostgreSQL database (containers/postgres_up.sh)
	StoreRocksDB    = "rocksdb"    // a RocksDB directory
	StoreInMemory   = "in-memory"  // the server's memory: a restart loses everything
	StoreUnknown    = "unknown"    // a server reached by URL that does not say
)

// ErrBadArgs is wrapped by every error of [Factory.Check].
var ErrBadArgs = errors.New("bad arguments")

// Check validates args for this competitor (see CheckArgs). It is cheap,
// touches nothing outside the process, and wraps ErrBadArgs.
func (f Factory) Check(args []string) error {
	if f.CheckArgs == nil {
		if len(args) > 0 {
			return fmt.Errorf("%w: %s takes no arguments, got %q", ErrBadArgs, f.Name, args)
		}
		return nil
	}
	if err := f.CheckArgs(args); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadArgs, f.Name, err)
	}
	return nil
}

// factories holds the registered competitors by name.
var factories registry.Registry[Factory]

// ErrUnknown is returned by Lookup for a name nobody registered.
var ErrUnknown = errors.New("unknown competitor")

// Register adds a factory. It panics on a duplicate name: that is a
// programming error found at init, never a user input.
func Register(f Factory) {
	if f.Store != "" && f.New != nil {
		newFn, store := f.New, f.Store
		f.New = func(ctx context.Context, cfg Config) (Competitor, error) {
			c, err := newFn(ctx, cfg)
			if err != nil {
				return nil, err
			}
			if p := c.Params(); p != nil {
				if _, set := p["store"]; !set {
					p["store"] = store
				}
			}
			return c, nil
		}
	}
	if err := factories.Register(f.Name, f); err != nil {
		panic("competitors: " + err.Error())
	}
}

// Lookup returns the factory registered under name.
func Lookup(name string) (Factory, error) {
	f, ok := factories.Lookup(name)
	if !ok {
		return Factory{}, fmt.Errorf("%w %q (valid: %v)", ErrUnknown, name, factories.Names())
	}
	return f, nil
}

// All returns every factory, sorted by name.
func All() []Factory { return factories.Values() }

// Names returns every registered name, sorted.
func Names() []string { return factories.Names() }

// Base is a ready-made Competitor for factories: a name, a catalog, params
// and a close function run once.
type Base struct {
	// TargetName is the competitor's name, the target of its lines.
	TargetName string
	// Cat is the catalog the scenarios drive.
	Cat catalog.Catalog
	// LineParams go into the params of every line it gives.
	LineParams map[string]any
	// CloseFn, when set, runs once at Close.
	CloseFn func() error

	once     sync.Once
	closeErr error
}

var _ Competitor = (*Base)(nil)

func (b *Base) Name() string             { return b.TargetName }
func (b *Base) Catalog() catalog.Catalog { return b.Cat }
func (b *Base) Params() map[string]any   { return b.LineParams }

// Close runs CloseFn once; later calls return the first result.
func (b *Base) Close() error {
	b.once.Do(func() {
		if b.CloseFn != nil {
			b.closeErr = b.CloseFn()
		}
	})
	return b.closeErr
}

// Ephemeral is the capability of a competitor whose storage is thrown away
// on Close (a fresh temp warehouse), so the runner need not drop the dataset
// it created — dropping 10,000 tables one by one would only cost time.
type Ephemeral interface {
	Ephemeral() bool
}

// Durable is the capability of a competitor whose durability mode is set
// by Config.Durability. DurabilityMode reports the mode it runs in, or ""
// when the mode is not the client's to choose (a remote server).
type Durable interface {
	DurabilityMode() string
}

// Reopener is the capability of an in-process competitor to close and
// reopen its catalog, so that nothing read before is cached in the process
// (the embedded catalog's in-memory metadata mirror). Catalog returns the
// reopened catalog afterwards. Reopen must not run concurrently with any
// other use of the competitor.
type Reopener interface {
	Reopen(ctx context.Context) error
}

// WarmupHinter is the capability of a competitor that needs a longer warm-up
// than the default before its numbers settle (a JVM server whose JIT is still
// compiling). The runner uses the longer of the hint and --warmup.
type WarmupHinter interface {
	WarmupHint() time.Duration
}
