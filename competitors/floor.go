package competitors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/workspace"
)

// FileFloorName is the file-system floor's registry name: the lines it
// produces carry it as their target.
const FileFloorName = "fs-floor"

// FileFloorScenarios are the scenario stems the floor runs (a name runs when
// it is one of them or one of their levels); every other scenario is
// skipped on it.
var FileFloorScenarios = []string{"create_table.throughput", "commit_table.throughput", "create_table.flush", "commit_table.flush"}

// FileFloorOf returns the floor that runs beside target name when its write
// scenarios are selected: its factory's FileFloor ("" for none, or for a name
// that is not registered).
func FileFloorOf(name string) string {
	f, err := Lookup(name)
	if err != nil {
		return ""
	}
	return f.FileFloor
}

// Scoped is the capability of a competitor that runs only some scenarios:
// Runs returns "" for a scenario it runs, else why it skips it.
type Scoped interface {
	Runs(scenario string) string
}

// Flusher is the capability of a competitor whose durable writes are
// flushed in a mode the client chooses (Config.Flush).
type Flusher interface {
	FlushMode() catalog.Flush
}

// Batcher is the capability of a competitor that commits concurrent
// writes in batches and counts them: batches so far and the writes they
// held.
type Batcher interface {
	CommitBatches() (batches, ops uint64)
}

// floorCompetitor is the file-system floor (catalog.FileFloor) behind a
// catalog interface that does its file work for creates and commits and
// keeps everything else in memory.
type floorCompetitor struct {
	Base
	cat *floorCatalog
}

var (
	_ Scoped  = (*floorCompetitor)(nil)
	_ Flusher = (*floorCatalog)(nil)
	_ Batcher = (*floorCatalog)(nil)
)

// FileFloorRuns reports whether the floor runs scenario: one of FileFloorScenarios
// or one of their levels.
func FileFloorRuns(scenario string) bool {
	for _, s := range FileFloorScenarios {
		if scenario == s || strings.HasPrefix(scenario, s+".") {
			return true
		}
	}
	return false
}

// Runs: the write-throughput scenarios only.
func (*floorCompetitor) Runs(scenario string) string {
	if FileFloorRuns(scenario) {
		return ""
	}
	return "the file-system floor only runs " + strings.Join(FileFloorScenarios, ", ")
}

// DurabilityMode: the floor is the floor of immediate durability.
func (*floorCompetitor) DurabilityMode() string { return string(catalog.Immediate) }

// Ephemeral: the floor's files live in the run's directory.
func (*floorCompetitor) Ephemeral() bool { return true }

func init() {
	Register(Factory{
		Name: FileFloorName,
		Description: "the file work of the embedded catalog's durable creates and commits (directories, metadata file, " +
			"a record write for bbolt's), batched like its group commit and flushed the cheapest correct way; no catalog",
		// Its table list lives in memory; the record file is never read back.
		Store: StoreInMemory,
		New:   newFloor,
	})
}

func newFloor(_ context.Context, cfg Config) (Competitor, error) {
	if cfg.Dir == "" {
		return nil, errors.New("fs-floor: no directory given")
	}
	if d, err := catalog.ParseDurability(cfg.Durability); err != nil || d != catalog.Immediate {
		return nil, fmt.Errorf("fs-floor: durability %q: the floor is the floor of immediate durability only", cfg.Durability)
	}
	fl, err := catalog.OpenFileFloor(cfg.Dir, catalog.Flush(cfg.Flush))
	if err != nil {
		return nil, fmt.Errorf("fs-floor: %w", err)
	}
	cat := &floorCatalog{
		fl: fl, root: filepath.Join(cfg.Dir, "warehouse"),
		tables: map[string]*floorTable{}, namespaces: map[string]iceberg.Properties{},
	}
	c := &floorCompetitor{cat: cat, Base: Base{TargetName: FileFloorName, Cat: cat, LineParams: map[string]any{
		"dir": cfg.Dir, "durability": string(catalog.Immediate), "flush": string(fl.FlushMode()),
		"floor": "per write: new directories, the metadata file's bytes (a commit's with the metadata log a catalog's commit writes, " +
			"up to 100 previous files), a record of the pointer's size; " +
			"per batch: the files and directories flushed in params.flush, then the records in one page-rounded write and one fdatasync",
	}}}
	addDirFS(c.LineParams, cfg.Dir)
	c.CloseFn = fl.Close
	return c, nil
}

// floorCatalog is the catalog interface of the floor. Creates and commits
// do the floor's file work; namespaces and the list of tables are kept in
// memory; nothing is checked beyond what keeps files inside the
// warehouse. Safe for concurrent use.
type floorCatalog struct {
	fl   *catalog.FileFloor
	root string // local warehouse directory

	mu         sync.Mutex
	tables     map[string]*floorTable
	namespaces map[string]iceberg.Properties
	// meta and raw are the metadata of the first table created, as
	// iceberg-go writes it; every later file holds the same bytes.
	meta table.Metadata
	raw  []byte
}

// floorTable is one created table: its metadata directory, the next
// metadata version, and the metadata log its next commit writes. Guarded
// by floorCatalog.mu.
type floorTable struct {
	dir     string
	version int
	// log is the metadata log's entries, oldest first: the table's
	// previous metadata files, as a catalog's commit lists them, at most
	// floorLogMax.
	log [][]byte
}

// floorLogMax is how many previous metadata files a commit's file lists:
// iceberg-go's default of write.metadata.previous-versions-max, which a
// catalog's commit keeps.
const floorLogMax = table.MetadataPreviousVersionsMaxDefault

// commitBytes returns the bytes of a commit's metadata file: the template
// with the metadata log a catalog's commit writes (one entry per previous
// file, its location and a time), so that a commit costs the floor as
// many bytes as the catalog, whose files grow with each commit up to
// floorLogMax entries. The floor's files are never read back.
func commitBytes(raw []byte, log [][]byte) []byte {
	n := len(raw) + len(`,"metadata-log":[]`)
	for _, e := range log {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, raw[:len(raw)-1]...) // the template's closing brace
	out = append(out, `,"metadata-log":[`...)
	for i, e := range log {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, "]}"...)
}

// addDirFS sets params.dir_fs to the file system of dir (see
// workspace.FileSystem), on whose kind and recent past a write line's
// numbers depend; nothing when it cannot be told.
func addDirFS(params map[string]any, dir string) {
	if fs, _ := workspace.FileSystem(dir); fs != "" {
		params["dir_fs"] = fs
	}
}

// logEntry is the metadata log's entry for the file at loc, written at ms.
func logEntry(loc string, ms int64) []byte {
	return fmt.Appendf(nil, `{"metadata-file":%q,"timestamp-ms":%d}`, loc, ms)
}

func (c *floorCatalog) FlushMode() catalog.Flush             { return c.fl.FlushMode() }
func (c *floorCatalog) CommitBatches() (batches, ops uint64) { return c.fl.CommitBatches() }

func (*floorCatalog) CatalogType() icecatalog.Type { return "fs-floor" }

func floorKey(ident table.Identifier) string { return strings.Join(ident, "\x1f") }

// tableDir is the table's directory under the warehouse, as the embedded
// catalog lays it out (<warehouse>/<namespace…>/<table>). A part that is
// empty or would leave its parent is refused.
func (c *floorCatalog) tableDir(ident table.Identifier) (string, error) {
	if len(ident) < 2 {
		return "", fmt.Errorf("fs-floor: table %v: %w", ident, iceberg.ErrInvalidArgument)
	}
	parts := []string{c.root}
	for _, p := range ident {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, `/\`) {
			return "", fmt.Errorf("fs-floor: table name part %q: %w", p, iceberg.ErrInvalidArgument)
		}
		parts = append(parts, p)
	}
	return filepath.Join(parts...), nil
}

// template returns the metadata every floor file holds, built once.
func (c *floorCatalog) template(sc *iceberg.Schema, loc string) (table.Metadata, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.raw != nil {
		return c.meta, c.raw, nil
	}
	meta, err := table.NewMetadata(sc, iceberg.UnpartitionedSpec, table.UnsortedSortOrder, loc, nil)
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(meta)
	if err != nil {
		return nil, nil, err
	}
	c.meta, c.raw = meta, raw
	return meta, raw, nil
}

// logged adds the file at loc to t's metadata log, for its next commit.
func (c *floorCatalog) logged(t *floorTable, loc string) {
	e := logEntry(loc, time.Now().UnixMilli())
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(t.log) == floorLogMax {
		t.log = append(t.log[:0:0], t.log[1:]...)
	}
	t.log = append(t.log, e)
}

// write writes version of the table's metadata file and its record.
func (c *floorCatalog) write(ident table.Identifier, dir string, version int, raw []byte) (string, error) {
	path := filepath.Join(dir, "metadata", fmt.Sprintf("%05d-%s.metadata.json", version, uuid.New()))
	loc := "file://" + filepath.ToSlash(path)
	record := append([]byte(floorKey(ident)+"\x00"), loc...)
	return loc, c.fl.Write(path, raw, record)
}

func (c *floorCatalog) CreateTable(_ context.Context, ident table.Identifier, sc *iceberg.Schema, _ ...icecatalog.CreateTableOpt) (*table.Table, error) {
	dir, err := c.tableDir(ident)
	if err != nil {
		return nil, err
	}
	meta, raw, err := c.template(sc, "file://"+filepath.ToSlash(dir))
	if err != nil {
		return nil, fmt.Errorf("fs-floor: create %v: %w", ident, err)
	}
	k := floorKey(ident)
	c.mu.Lock()
	t, exists := c.tables[k]
	if !exists {
		t = &floorTable{dir: dir, version: 1}
		c.tables[k] = t
	}
	c.mu.Unlock()
	if exists {
		return nil, fmt.Errorf("fs-floor: create %v: %w", ident, icecatalog.ErrTableAlreadyExists)
	}
	loc, err := c.write(ident, dir, 0, raw)
	if err != nil {
		c.mu.Lock()
		delete(c.tables, k)
		c.mu.Unlock()
		return nil, err
	}
	c.logged(t, loc)
	return table.New(ident, meta, loc, nil, c), nil
}

func (c *floorCatalog) CommitTable(_ context.Context, ident table.Identifier, _ []table.Requirement, _ []table.Update) (table.Metadata, string, error) {
	c.mu.Lock()
	t, ok := c.tables[floorKey(ident)]
	var version int
	var raw []byte
	if ok {
		version = t.version
		t.version++
		raw = commitBytes(c.raw, t.log)
	}
	meta := c.meta
	c.mu.Unlock()
	if !ok {
		return nil, "", fmt.Errorf("fs-floor: commit %v: %w", ident, icecatalog.ErrNoSuchTable)
	}
	loc, err := c.write(ident, t.dir, version, raw)
	if err != nil {
		return nil, "", err
	}
	c.logged(t, loc)
	return meta, loc, nil
}

func (c *floorCatalog) LoadTable(_ context.Context, ident table.Identifier) (*table.Table, error) {
	c.mu.Lock()
	_, ok := c.tables[floorKey(ident)]
	meta := c.meta
	c.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("fs-floor: load %v: %w", ident, icecatalog.ErrNoSuchTable)
	}
	return table.New(ident, meta, "", nil, c), nil
}

func (c *floorCatalog) ListTables(_ context.Context, ns table.Identifier) iter.Seq2[table.Identifier, error] {
	c.mu.Lock()
	var ids []table.Identifier
	prefix := floorKey(ns) + "\x1f"
	for k := range c.tables {
		if rest, ok := strings.CutPrefix(k, prefix); ok && !strings.Contains(rest, "\x1f") {
			ids = append(ids, strings.Split(k, "\x1f"))
		}
	}
	c.mu.Unlock()
	slices.SortFunc(ids, func(a, b table.Identifier) int { return strings.Compare(floorKey(a), floorKey(b)) })
	return func(yield func(table.Identifier, error) bool) {
		for _, id := range ids {
			if !yield(id, nil) {
				return
			}
		}
	}
}

func (c *floorCatalog) DropTable(_ context.Context, ident table.Identifier) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tables[floorKey(ident)]; !ok {
		return fmt.Errorf("fs-floor: drop %v: %w", ident, icecatalog.ErrNoSuchTable)
	}
	delete(c.tables, floorKey(ident))
	return nil
}

func (*floorCatalog) RenameTable(context.Context, table.Identifier, table.Identifier) (*table.Table, error) {
	return nil, fmt.Errorf("fs-floor: rename: %w", errors.ErrUnsupported)
}

func (c *floorCatalog) CheckTableExists(_ context.Context, ident table.Identifier) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.tables[floorKey(ident)]
	return ok, nil
}

func (c *floorCatalog) ListNamespaces(_ context.Context, parent table.Identifier) ([]table.Identifier, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []table.Identifier
	for k := range c.namespaces {
		id := strings.Split(k, "\x1f")
		if len(id) == len(parent)+1 && slices.Equal(id[:len(parent)], parent) {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b table.Identifier) int { return strings.Compare(floorKey(a), floorKey(b)) })
	return out, nil
}

func (c *floorCatalog) CreateNamespace(_ context.Context, ns table.Identifier, props iceberg.Properties) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.namespaces[floorKey(ns)]; ok {
		return fmt.Errorf("fs-floor: create namespace %v: %w", ns, icecatalog.ErrNamespaceAlreadyExists)
	}
	c.namespaces[floorKey(ns)] = props
	return nil
}

func (c *floorCatalog) DropNamespace(_ context.Context, ns table.Identifier) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.namespaces[floorKey(ns)]; !ok {
		return fmt.Errorf("fs-floor: drop namespace %v: %w", ns, icecatalog.ErrNoSuchNamespace)
	}
	delete(c.namespaces, floorKey(ns))
	return nil
}

func (c *floorCatalog) CheckNamespaceExists(_ context.Context, ns table.Identifier) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.namespaces[floorKey(ns)]
	return ok, nil
}

func (c *floorCatalog) LoadNamespaceProperties(_ context.Context, ns table.Identifier) (iceberg.Properties, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	props, ok := c.namespaces[floorKey(ns)]
	if !ok {
		return nil, fmt.Errorf("fs-floor: namespace %v: %w", ns, icecatalog.ErrNoSuchNamespace)
	}
	return props, nil
}

func (*floorCatalog) UpdateNamespaceProperties(context.Context, table.Identifier, []string, iceberg.Properties) (icecatalog.PropertiesUpdateSummary, error) {
	return icecatalog.PropertiesUpdateSummary{}, fmt.Errorf("fs-floor: update namespace properties: %w", errors.ErrUnsupported)
}
