package commitcheck

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/internal/results"
)

// DefaultRetries is the commit retries a storm asks iceberg-go for when
// none are given: Apache Iceberg's Java default for
// commit.retry.num-retries. iceberg-go v0.7.0 has the same retry loop
// (refresh, re-apply, exponential backoff from commit.retry.min-wait-ms)
// but defaults to 0 retries.
const DefaultRetries = 4

// DefaultCommitTimeout bounds one commit, retries included, when a Storm
// gives none: a commit that has not answered by then is indeterminate.
const DefaultCommitTimeout = 2 * time.Minute

// Schema is the one-column schema of a storm's tables.
var Schema = iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})

// Storm is W writers committing to K tables. The zero value is not
// usable: set Catalog, Namespace, Tables, Writers and either Commits or
// Duration. A Storm is used by one goroutine; Run starts the writers.
type Storm struct {
	Catalog   icecatalog.Catalog
	Namespace table.Identifier
	// Prefix names the tables (Prefix_t0, Prefix_t1, …) and starts every
	// marker, so markers of different storms never meet.
	Prefix  string
	Tables  int
	Writers int
	// Commits is how many commits to attempt in all; 0 runs for Duration.
	Commits  int
	Duration time.Duration
	// Retries is commit.retry.num-retries on the storm's tables: how many
	// times iceberg-go refreshes and re-applies a commit that lost a race.
	Retries int
	// Backoff is iceberg-go's wait between retries (commit.retry.min-wait-ms
	// and max-wait-ms on the tables); the zero value is DefaultBackoff.
	Backoff Backoff
	// NoMarkers commits without a marker (to measure the marker's own
	// cost); such a storm's log cannot be checked.
	NoMarkers bool
	// CommitTimeout bounds one commit, retries included; 0 means
	// DefaultCommitTimeout.
	CommitTimeout time.Duration
	// Markers starts every marker instead of Prefix when set: the writers
	// of one process of several on the same tables (ChildWriters).
	Markers string
	// Observe, when set, is called by each writer before it commits (done
	// false: the attempt's marker, table and writer) and after (done true:
	// the whole attempt, as logged). Writers call it concurrently.
	Observe func(a Attempt, done bool)
}

// Result is what a storm did.
type Result struct {
	Log     *Log
	Elapsed time.Duration
	// Acked holds the latency (first try to answer, retries included) of
	// every acknowledged commit; Failed counts the rest.
	Acked *results.Recorder
}

// Idents are the storm's tables.
func (s Storm) Idents() []table.Identifier {
	ids := make([]table.Identifier, s.Tables)
	for i := range ids {
		ids[i] = append(append(table.Identifier{}, s.Namespace...), fmt.Sprintf("%s_t%d", s.Prefix, i))
	}
	return ids
}

// Setup creates the namespace (if missing) and the storm's tables, with
// the retry settings on each.
func (s Storm) Setup(ctx context.Context) error {
	if s.Tables < 1 || s.Writers < 1 || (s.Commits < 1 && s.Duration <= 0) || s.Retries < 0 {
		return fmt.Errorf("commit storm: need tables ≥ 1, writers ≥ 1, retries ≥ 0 and commits or a duration (got %d, %d, %d, %d, %s)",
			s.Tables, s.Writers, s.Retries, s.Commits, s.Duration)
	}
	if err := s.Catalog.CreateNamespace(ctx, s.Namespace, nil); err != nil && !errors.Is(err, icecatalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("create namespace %v: %w", s.Namespace, err)
	}
	b := s.Backoff.orDefault()
	props := iceberg.Properties{table.CommitNumRetriesKey: strconv.Itoa(s.Retries),
		table.CommitMinRetryWaitMsKey: strconv.FormatInt(b.Min.Milliseconds(), 10),
		table.CommitMaxRetryWaitMsKey: strconv.FormatInt(b.Max.Milliseconds(), 10)}
	for _, id := range s.Idents() {
		if _, err := s.Catalog.CreateTable(ctx, id, Schema, icecatalog.WithProperties(props)); err != nil {
			return fmt.Errorf("create table %v: %w", id, err)
		}
	}
	return nil
}

// Run drives the writers until Commits commits were attempted or Duration
// passed (commits in flight then finish), or ctx ends. Every attempt is
// in the log, whatever its outcome.
func (s Storm) Run(ctx context.Context) Result {
	ids := s.Idents()
	timeout := s.CommitTimeout
	if timeout <= 0 {
		timeout = DefaultCommitTimeout
	}
	log := &Log{}
	recs := make([]*results.Recorder, s.Writers)
	var next atomic.Int64
	deadline := time.Time{}
	start := time.Now()
	if s.Commits == 0 {
		deadline = start.Add(s.Duration)
	}
	cat := counted{inner: s.Catalog}
	var wg sync.WaitGroup
	for w := range s.Writers {
		recs[w] = results.NewRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var unreachable time.Duration
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if s.Commits > 0 && i >= int64(s.Commits) {
					return
				}
				if !deadline.IsZero() && !time.Now().Before(deadline) {
					return
				}
				a := s.commit(ctx, cat, ids[int(i)%len(ids)], w, i, timeout)
				if a.Outcome == Acked {
					recs[w].Record(a.Latency)
				} else {
					recs[w].Error()
				}
				log.Add(a)
				if s.Observe != nil {
					s.Observe(a, true)
				}
				if a.Tries == 0 && a.Outcome != Acked {
					// Never sent (the server is down or restarting):
					// wait before the next, as a client backs off a
					// server it cannot reach.
					unreachable = min(max(2*unreachable, 10*time.Millisecond), 500*time.Millisecond)
					pause(ctx, unreachable)
				} else {
					unreachable = 0
				}
			}
		}()
	}
	wg.Wait()
	return Result{Log: log, Elapsed: time.Since(start), Acked: results.Merged(recs...)}
}

// commit makes one commit attempt — load, a transaction adding one data
// file with the marker, iceberg-go's commit and retries — and says how it
// ended.
func (s Storm) commit(ctx context.Context, cat counted, id table.Identifier, w int, i int64, timeout time.Duration) Attempt {
	prefix := s.Prefix
	if s.Markers != "" {
		prefix = s.Markers
	}
	marker := fmt.Sprintf("%s-w%d-c%d", prefix, w, i)
	a := Attempt{Marker: marker, Table: strings.Join(id, "."), Writer: w}
	if s.Observe != nil {
		s.Observe(a, false)
	}
	n := &calls{}
	cctx, cancel := context.WithTimeout(context.WithValue(ctx, callsKey{}, n), timeout)
	defer cancel()
	start := time.Now()
	tbl, err := s.send(cctx, cat, id, marker)
	if err == nil && tbl != nil {
		if head := tbl.Metadata().SnapshotByName(table.MainBranch); head != nil && markerOf(head) == marker {
			a.Ack = &Ack{Snapshot: head.SnapshotID, Parent: -1, Sequence: head.SequenceNumber, MetadataFile: tbl.MetadataLocation()}
			if head.ParentSnapshotID != nil {
				a.Ack.Parent = *head.ParentSnapshotID
			}
		}
	}
	a.Latency = time.Since(start)
	a.Tries, a.Conflicts, a.Calls = n.commits, n.conflicts, n.loads+n.commits
	a.Spent = n.spent
	a.Outcome = Classify(err)
	if err != nil && n.commits == 0 {
		a.Outcome = Refused // never sent: it cannot be in the history
	}
	if err != nil {
		a.Err = results.RedactText(err.Error())
	}
	return a
}

func (s Storm) send(ctx context.Context, cat counted, id table.Identifier, marker string) (*table.Table, error) {
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("load %v: %w", id, err)
	}
	df, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentData,
		tbl.Location()+"/data/"+marker+".parquet", iceberg.ParquetFile, nil, nil, nil, 1, 1)
	if err != nil {
		return nil, err
	}
	var props iceberg.Properties
	if !s.NoMarkers {
		props = iceberg.Properties{MarkerProperty: marker}
	}
	txn := tbl.NewTransaction()
	if err := txn.AddDataFiles(ctx, []iceberg.DataFile{df.Build()}, props, table.WithoutDuplicateCheck(), table.WithoutAutoNameMapping()); err != nil {
		return nil, fmt.Errorf("stage commit on %v: %w", id, err)
	}
	return txn.Commit(ctx)
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
