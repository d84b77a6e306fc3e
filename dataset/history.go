package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/competitors"
)

// History depth as an axis of the dataset. With History.Levels set, every
// level N gets History.Tables tables of its own (in the namespace
// <root>_history.s<N>, beside the dataset's tree, so the discovery
// scenarios never see them) whose metadata carries N real snapshots, as a
// writer's appends leave them: a snapshot log, metadata log entries, and a
// manifest list per snapshot naming the table's one manifest, written to
// the table's location through the table's own FileIO (the manifest names
// one data file, which is not written: no catalog reads data files). A level is built the first time
// a history scenario needs it on a competitor, and its build time travels
// on every line of that level.
//
// Two build paths, each the competitor's own:
//   - commits: the table is created, then its snapshots are committed
//     through the competitor's CommitTable (add-snapshot and set-snapshot-ref
//     updates), in at most MaxHistoryCommits commits. A catalog drops the
//     snapshot-log entries of snapshots superseded within one commit (the
//     reference builder does), so such a table's snapshot log holds one
//     entry per commit; the line says what the client received.
//   - register: the metadata file is generated (every snapshot with its
//     snapshot-log entry, min(N, 100) metadata-log entries naming earlier
//     versions, which are not written) next to the created table's own,
//     the table is dropped and the file registered under the same name.
//     Only where the competitor's client can register tables.

// The history build paths (History.Build, params.history_built).
const (
	HistoryAuto     = "auto"     // register where the competitor can, commits elsewhere
	HistoryCommits  = "commits"  // always commits
	HistoryRegister = "register" // always register (a competitor that cannot is skipped)
)

// MaxHistoryCommits bounds the commits that build one table's history: N
// snapshots are committed in batches of ⌈N/MaxHistoryCommits⌉, so a table
// ends with as many metadata-log entries as a writer's appends would leave
// (the default write.metadata.previous-versions-max is 100).
const MaxHistoryCommits = 100

// MaxSnapshots is the deepest history level katbench builds.
const MaxSnapshots = 100_000

// History is the history-depth axis of a run. The zero value builds none.
type History struct {
	// Levels are the snapshot counts, distinct and ascending.
	Levels []int
	// Tables is the number of history tables per level (≥ 1).
	Tables int
	// Build is one of HistoryAuto, HistoryCommits, HistoryRegister.
	Build string
}

// Enabled reports whether the run builds history tables.
func (h History) Enabled() bool { return len(h.Levels) > 0 }

// ParseSnapshotLevels reads "0,100,1000": distinct counts 0..MaxSnapshots,
// returned ascending.
func ParseSnapshotLevels(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a snapshot count (want integers 0..%d, comma-separated, e.g. 0,100,1000)", f, MaxSnapshots)
		}
		if n < 0 || n > MaxSnapshots {
			return nil, fmt.Errorf("%d snapshots: want 0..%d", n, MaxSnapshots)
		}
		if seen[n] {
			return nil, fmt.Errorf("%d snapshots given twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

// Validate rejects a history that cannot be built.
func (h History) Validate() error {
	if !h.Enabled() {
		return nil
	}
	switch h.Build {
	case HistoryAuto, HistoryCommits, HistoryRegister:
	default:
		return fmt.Errorf("history build %q: want auto, commits or register", h.Build)
	}
	if h.Tables < 1 || h.Tables > 1000 {
		return fmt.Errorf("%d history tables per level: want 1..1000", h.Tables)
	}
	for _, n := range h.Levels {
		if n < 0 || n > MaxSnapshots {
			return fmt.Errorf("%d snapshots: want 0..%d", n, MaxSnapshots)
		}
	}
	return nil
}

// The sizes EstimateBytes works with, measured on this toolkit's tables
// (3 columns, unpartitioned): a snapshot's entry in the metadata JSON with
// its snapshot-log entry, the rest of the metadata, and one manifest list.
const (
	snapshotJSONBytes  = 420
	baseMetadataBytes  = 4 << 10
	manifestListBytes  = 4 << 10
	metadataLogEntries = 100
)

// EstimateBytes is how many bytes building and measuring the history
// writes to one competitor's warehouse, at most: per table, every metadata
// file of its commits (each one the size of the history so far), a
// manifest list per snapshot, and commits of createOps more metadata files
// of the full size (commit_table.latency on history tables).
func (h History) EstimateBytes(createOps int) int64 {
	var total int64
	for _, n := range h.Levels {
		full := int64(baseMetadataBytes + n*snapshotJSONBytes)
		commits := int64(min(n, MaxHistoryCommits))
		// Commit k of C writes a file holding k/C of the snapshots.
		files := commits*int64(baseMetadataBytes) + int64(n)*snapshotJSONBytes*(commits+1)/2
		per := files + int64(n)*manifestListBytes + full*int64(createOps+1)
		total += per * int64(max(h.Tables, 1))
	}
	return total
}

// HistoryLevel is one level's tables on one competitor, once built.
type HistoryLevel struct {
	Snapshots int
	Tables    []table.Identifier
	// Built is how: HistoryCommits or HistoryRegister.
	Built string
	// BuildTime is the wall time of building every table of the level.
	BuildTime time.Duration
	// Notes say what differs from a writer's appends (manifest lists that
	// could not be written, a fallback from register to commits).
	Notes []string
	// What the client received on a load of the first table: snapshots,
	// snapshot-log and metadata-log entries, and the metadata's size in
	// bytes as MetadataBytesOf says it was measured.
	Received        table.Metadata
	MetadataBytes   int
	MetadataBytesOf string
}

// historyResult is one level's outcome on one competitor.
type historyResult struct {
	lv  *HistoryLevel
	err error
}

// historyNamespace is the namespace of the history tables of level n.
func historyNamespace(root string, n int) table.Identifier {
	return table.Identifier{root + "_history", "s" + strconv.Itoa(n)}
}

// HistoryBuild is what building a history level on one competitor
// needs: the competitor, the run's root namespace and history settings,
// the setup workers it tolerates, where to record the tables it creates
// (dropped at the end of the run) and where to log.
type HistoryBuild struct {
	Competitor competitors.Competitor
	Root       string
	History    History
	Parallel   int
	// Created records created tables; safe for concurrent use.
	Created func(ids ...table.Identifier)
	// Log receives one line per build step; nil logs nothing.
	Log io.Writer
}

func (b HistoryBuild) logf(format string, args ...any) {
	if b.Log != nil {
		fmt.Fprintf(b.Log, format+"\n", args...)
	}
}

// HistoryLevel returns level n on b's competitor, building it on first
// use. The namespaces and tables it creates are dropped with the dataset.
// A level that could not be built returns the same error on every call.
// Not safe for concurrent use: a run builds levels from one goroutine.
func (d *Dataset) HistoryLevel(ctx context.Context, b HistoryBuild, n int) (*HistoryLevel, error) {
	if d.history == nil {
		d.history = map[int]*historyResult{}
	}
	if r, ok := d.history[n]; ok {
		return r.lv, r.err
	}
	lv, err := d.buildHistoryLevel(ctx, b, n)
	d.history[n] = &historyResult{lv, err}
	return lv, err
}

// registerer is a catalog client that can register a metadata file as a
// table (our catalog, iceberg-go's REST client).
type registerer interface {
	RegisterTable(ctx context.Context, ident table.Identifier, metadataLocation string) (*table.Table, error)
}

// buildHistoryLevel creates level n's namespace and tables on b's
// competitor.
func (d *Dataset) buildHistoryLevel(ctx context.Context, b HistoryBuild, n int) (*HistoryLevel, error) {
	cat := b.Competitor.Catalog()
	ns := historyNamespace(b.Root, n)
	for i := range ns {
		id := ns[:i+1]
		if d.hasNamespace(id) {
			continue
		}
		err := SetupRetry.Do(ctx, func(again bool) error {
			err := cat.CreateNamespace(ctx, id, iceberg.Properties{"katbench": "history"})
			if again && errors.Is(err, icecatalog.ErrNamespaceAlreadyExists) {
				return nil
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("create namespace %s: %w", NamespaceString(id), err)
		}
		// Drop removes it with the dataset (children before parents).
		d.historyNS = append(d.historyNS, append(table.Identifier{}, id...))
	}
	mode := b.History.Build
	reg, canRegister := cat.(registerer)
	if mode == HistoryRegister && !canRegister {
		return nil, fmt.Errorf("%s's client (%T) cannot register tables", b.Competitor.Name(), cat)
	}
	useRegister := canRegister && mode != HistoryCommits
	ids := make([]table.Identifier, b.History.Tables)
	for i := range ids {
		ids[i] = append(append(table.Identifier{}, ns...), fmt.Sprintf("h%03d", i))
	}
	lv := &HistoryLevel{Snapshots: n, Built: HistoryCommits}
	if useRegister {
		lv.Built = HistoryRegister
	}
	var notesMu sync.Mutex
	note := func(s string) {
		notesMu.Lock()
		defer notesMu.Unlock()
		if !slices.Contains(lv.Notes, s) {
			lv.Notes = append(lv.Notes, s)
		}
	}
	build := func(ctx context.Context, id table.Identifier, register bool) error {
		var tbl *table.Table
		err := SetupRetry.Do(ctx, func(again bool) error {
			var err error
			tbl, err = cat.CreateTable(ctx, id, Schema)
			if again && errors.Is(err, icecatalog.ErrTableAlreadyExists) {
				tbl, err = cat.LoadTable(ctx, id)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
		b.Created(id)
		snaps, err := writeSnapshots(ctx, tbl, n)
		if err != nil {
			// The reason names paths: it goes to the log, the line says
			// only that the lists are missing.
			b.logf("%s: %s: manifest lists not written: %v", b.Competitor.Name(), strings.Join(id, "."), err)
			note("manifest lists not written (the client could not write to the table's location)")
		}
		if register {
			return registerHistory(ctx, cat, reg, tbl, snaps)
		}
		return commitHistory(ctx, cat, tbl, snaps)
	}
	parallel := b.Parallel
	start := time.Now()
	// The first table alone: in auto mode a register the server refuses
	// turns the level to commits.
	err := build(ctx, ids[0], useRegister)
	if err != nil && useRegister && mode == HistoryAuto {
		b.logf("%s: register refused, building the history by commits: %v", b.Competitor.Name(), err)
		note("register refused by the server: built by commits")
		useRegister, lv.Built = false, HistoryCommits
		if derr := cat.DropTable(ctx, ids[0]); derr != nil && !errors.Is(derr, icecatalog.ErrNoSuchTable) {
			return nil, fmt.Errorf("build %d-snapshot tables: drop after a refused register: %w", n, derr)
		}
		err = build(ctx, ids[0], false)
	}
	built := []table.Identifier{ids[0]}
	if err == nil {
		var rest []table.Identifier
		rest, err = ParallelDo(ctx, ids[1:], parallel, func(ctx context.Context, id table.Identifier) error {
			return build(ctx, id, useRegister)
		}, nil)
		built = append(built, rest...)
	}
	lv.BuildTime = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("build %d-snapshot tables (%s): %w", n, lv.Built, err)
	}
	lv.Tables = built
	b.logf("%s: %d tables with %d snapshots built by %s in %v", b.Competitor.Name(), len(built), n, lv.Built, lv.BuildTime.Round(time.Millisecond))
	if err := lv.measure(ctx, b.Competitor); err != nil {
		return nil, err
	}
	return lv, nil
}

func (d *Dataset) hasNamespace(id table.Identifier) bool {
	for _, ns := range d.historyNS {
		if slices.Equal(ns, id) {
			return true
		}
	}
	return false
}

// snapshotIDBase keeps generated snapshot ids clear of small numbers.
const snapshotIDBase = 1_000_000_000

// writeSnapshots makes the n snapshots of tbl's history: each an append
// with its own manifest list naming one manifest, both written under the
// table's metadata directory through its FileIO. When the files cannot be
// written (a client that holds no credentials for the server's store), the
// snapshots are returned all the same, naming lists that do not exist, and
// the error says why.
func writeSnapshots(ctx context.Context, tbl *table.Table, n int) ([]table.Snapshot, error) {
	meta := tbl.Metadata()
	if v := meta.Version(); v != 1 && v != 2 {
		return nil, fmt.Errorf("format version %d: history tables are v1 or v2", v)
	}
	ts := max(meta.LastUpdatedMillis(), time.Now().UnixMilli())
	schemaID := meta.CurrentSchema().ID
	base := strings.TrimSuffix(meta.Location(), "/") + "/metadata/"
	tag := uuid.NewString()
	snaps := make([]table.Snapshot, n)
	for k := range snaps {
		s := table.Snapshot{
			SnapshotID:     snapshotIDBase + int64(k),
			SequenceNumber: int64(k + 1),
			TimestampMs:    ts + int64(k) + 1,
			ManifestList:   fmt.Sprintf("%ssnap-%d-1-%s.avro", base, snapshotIDBase+k, tag),
			SchemaID:       &schemaID,
			Summary: &table.Summary{Operation: table.OpAppend, Properties: iceberg.Properties{
				"added-data-files": "0", "total-data-files": "0", "total-records": "0",
				"katbench.history": strconv.Itoa(k + 1),
			}},
		}
		if k > 0 {
			p := snaps[k-1].SnapshotID
			s.ParentSnapshotID = &p
		}
		snaps[k] = s
	}
	if n == 0 {
		return snaps, nil
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return snaps, err
	}
	wfs, ok := fsys.(icebergio.WriteFileIO)
	if !ok {
		return snaps, fmt.Errorf("the table's FileIO (%T) cannot write", fsys)
	}
	// One manifest for the whole history, holding one entry: a data file
	// that is named but not written (no catalog reads data files).
	df, err := iceberg.NewDataFileBuilder(meta.PartitionSpec(), iceberg.EntryContentData,
		strings.TrimSuffix(meta.Location(), "/")+"/data/"+tag+".parquet", iceberg.ParquetFile, nil, nil, nil, 1, 1)
	if err != nil {
		return snaps, fmt.Errorf("manifest entry: %w", err)
	}
	first := snaps[0].SnapshotID
	entry := iceberg.NewManifestEntryBuilder(iceberg.EntryStatusADDED, &first, df.Build()).SequenceNum(1).Build()
	var buf bytes.Buffer
	manifestPath := fmt.Sprintf("%s%s-m0.avro", base, tag)
	mf, err := iceberg.WriteManifest(manifestPath, &buf, meta.Version(), meta.PartitionSpec(), meta.CurrentSchema(), first, []iceberg.ManifestEntry{entry})
	if err != nil {
		return snaps, fmt.Errorf("encode manifest: %w", err)
	}
	if err := wfs.WriteFile(manifestPath, buf.Bytes()); err != nil {
		return snaps, fmt.Errorf("write %s: %w", manifestPath, err)
	}
	// The later snapshots list the manifest as the first one committed
	// it: with its sequence number assigned.
	existing := iceberg.NewManifestFile(meta.Version(), manifestPath, mf.Length(), mf.PartitionSpecID(), first).
		SequenceNum(1, 1).AddedFiles(1).AddedRows(1).Build()
	for k, s := range snaps {
		if ctx.Err() != nil {
			return snaps, ctx.Err()
		}
		buf.Reset()
		seq := s.SequenceNumber
		list := []iceberg.ManifestFile{existing}
		if k == 0 {
			list[0] = mf
		}
		if err := iceberg.WriteManifestList(meta.Version(), &buf, s.SnapshotID, s.ParentSnapshotID, &seq, 0, list); err != nil {
			return snaps, fmt.Errorf("encode manifest list: %w", err)
		}
		if err := wfs.WriteFile(s.ManifestList, buf.Bytes()); err != nil {
			return snaps, fmt.Errorf("write %s: %w", s.ManifestList, err)
		}
	}
	return snaps, nil
}

// commitHistory commits snaps to tbl in at most MaxHistoryCommits commits,
// each adding a batch of snapshots and moving main along them.
func commitHistory(ctx context.Context, cat icecatalog.Catalog, tbl *table.Table, snaps []table.Snapshot) error {
	if len(snaps) == 0 {
		return nil
	}
	batch := (len(snaps) + MaxHistoryCommits - 1) / MaxHistoryCommits
	reqs := []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID())}
	for lo := 0; lo < len(snaps); lo += batch {
		hi := min(lo+batch, len(snaps))
		updates := make([]table.Update, 0, 2*(hi-lo))
		for k := lo; k < hi; k++ {
			updates = append(updates, table.NewAddSnapshotUpdate(&snaps[k]),
				table.NewSetSnapshotRefUpdate(table.MainBranch, snaps[k].SnapshotID, table.BranchRef, 0, 0, 0))
		}
		// Not retried: a commit that failed after the server applied it
		// would be applied twice.
		if _, _, err := cat.CommitTable(ctx, tbl.Identifier(), reqs, updates); err != nil {
			return fmt.Errorf("commit snapshots %d..%d: %w", lo+1, hi, err)
		}
	}
	return nil
}

// registerHistory writes the metadata file of tbl with snaps as its
// history beside tbl's own, drops tbl and registers the file under its
// name.
func registerHistory(ctx context.Context, cat icecatalog.Catalog, reg registerer, tbl *table.Table, snaps []table.Snapshot) error {
	raw, err := historyMetadata(tbl, snaps)
	if err != nil {
		return err
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return fmt.Errorf("register: %w", err)
	}
	wfs, ok := fsys.(icebergio.WriteFileIO)
	if !ok {
		return fmt.Errorf("register: the table's FileIO (%T) cannot write the metadata file", fsys)
	}
	meta := tbl.Metadata()
	loc := fmt.Sprintf("%s/metadata/%05d-%s.metadata.json", strings.TrimSuffix(meta.Location(), "/"), min(len(snaps), metadataLogEntries)+1, uuid.NewString())
	if err := wfs.WriteFile(loc, raw); err != nil {
		return fmt.Errorf("register: write %s: %w", loc, err)
	}
	id := tbl.Identifier()
	if err := cat.DropTable(ctx, id); err != nil {
		return fmt.Errorf("register: drop the created table: %w", err)
	}
	if _, err := reg.RegisterTable(ctx, id, loc); err != nil {
		return fmt.Errorf("register %s: %w", loc, err)
	}
	return nil
}

// historyMetadata is tbl's metadata JSON with snaps as its snapshots, a
// snapshot-log entry per snapshot, main at the last one, and min(n, 100)
// metadata-log entries, the first naming tbl's own metadata file. The
// result is parsed back before it is returned.
func historyMetadata(tbl *table.Table, snaps []table.Snapshot) ([]byte, error) {
	meta := tbl.Metadata()
	raw, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	set := func(k string, v any) {
		if err == nil {
			m[k], err = json.Marshal(v)
		}
	}
	type logEntry struct {
		TimestampMs int64 `json:"timestamp-ms"`
		SnapshotID  int64 `json:"snapshot-id"`
	}
	type fileEntry struct {
		TimestampMs  int64  `json:"timestamp-ms"`
		MetadataFile string `json:"metadata-file"`
	}
	snapLog := make([]logEntry, len(snaps))
	for i, s := range snaps {
		snapLog[i] = logEntry{s.TimestampMs, s.SnapshotID}
	}
	var files []fileEntry
	if n := min(len(snaps), metadataLogEntries); n > 0 {
		dir := strings.TrimSuffix(meta.Location(), "/") + "/metadata/"
		files = append(files, fileEntry{meta.LastUpdatedMillis(), tbl.MetadataLocation()})
		for v := 1; v < n; v++ {
			files = append(files, fileEntry{snaps[len(snaps)*v/n].TimestampMs, fmt.Sprintf("%s%05d-%s.metadata.json", dir, v, meta.TableUUID())})
		}
	}
	set("snapshots", snaps)
	set("snapshot-log", snapLog)
	set("metadata-log", files)
	if _, ok := m["current-snapshot-id"]; !ok {
		set("current-snapshot-id", -1) // some servers want it said: no snapshot
	}
	if len(snaps) > 0 {
		last := snaps[len(snaps)-1]
		set("current-snapshot-id", last.SnapshotID)
		set("refs", map[string]any{table.MainBranch: map[string]any{"snapshot-id": last.SnapshotID, "type": table.BranchRef}})
		set("last-sequence-number", last.SequenceNumber)
		set("last-updated-ms", last.TimestampMs)
	}
	if err != nil {
		return nil, fmt.Errorf("encode history: %w", err)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode history: %w", err)
	}
	if _, err := table.ParseMetadataBytes(out); err != nil {
		return nil, fmt.Errorf("generated metadata does not parse: %w", err)
	}
	return out, nil
}

// measure loads the level's first table and records what the client
// received: the metadata and its size, as the load answer's body where
// katbench can make the request itself, else as the metadata file the
// catalog wrote, else as the metadata re-encoded.
func (lv *HistoryLevel) measure(ctx context.Context, c competitors.Competitor) error {
	if len(lv.Tables) == 0 {
		return errors.New("no history table was built")
	}
	id := lv.Tables[0]
	tbl, err := c.Catalog().LoadTable(ctx, id)
	if err != nil {
		return fmt.Errorf("load %s: %w", strings.Join(id, "."), err)
	}
	lv.Received = tbl.Metadata()
	if got := len(lv.Received.Snapshots()); got != lv.Snapshots {
		lv.Notes = append(lv.Notes, fmt.Sprintf("the catalog serves %d of the %d snapshots committed", got, lv.Snapshots))
	}
	if r, ok := competitors.As[competitors.Revalidator](c); ok {
		if a, err := r.RevalidateTable(ctx, id, ""); err == nil && a.Bytes > 0 {
			lv.MetadataBytes, lv.MetadataBytesOf = a.Bytes, "load answer body"
			return nil
		}
	}
	if fsys, err := tbl.FS(ctx); err == nil {
		if f, err := fsys.Open(tbl.MetadataLocation()); err == nil {
			n, cerr := io.Copy(io.Discard, f)
			f.Close()
			if cerr == nil {
				lv.MetadataBytes, lv.MetadataBytesOf = int(n), "metadata file"
				return nil
			}
		}
	}
	raw, err := json.Marshal(lv.Received)
	if err != nil {
		return fmt.Errorf("encode %s: %w", strings.Join(id, "."), err)
	}
	lv.MetadataBytes, lv.MetadataBytesOf = len(raw), "metadata re-encoded by the client"
	return nil
}
