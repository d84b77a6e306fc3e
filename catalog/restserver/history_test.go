package restserver

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"

	katcatalog "github.com/nordisk/katbench/catalog"
)

// frontPaths are the two load paths of the front: the embedded catalog's
// stored JSON spliced, and a generic catalog's metadata encoded.
var frontPaths = []struct {
	name string
	wrap func(icecatalog.Catalog) icecatalog.Catalog
}{
	{"spliced", func(c icecatalog.Catalog) icecatalog.Catalog { return c }},
	{"generic", func(c icecatalog.Catalog) icecatalog.Catalog { return plainCatalog{c} }},
}

// historyRef is a ref historyTable sets.
type historyRef struct {
	id  int64
	typ table.RefType
}

// historyRefs are the refs historyTable sets on a table of n snapshots:
// main at the newest, a tag on the first and on the middle one, and a
// branch at the one before the newest.
func historyRefs(n int) map[string]historyRef {
	refs := map[string]historyRef{table.MainBranch: {historyID(n - 1), table.BranchRef}}
	if n > 1 {
		refs["first"] = historyRef{historyID(0), table.TagRef}
		refs["middle"] = historyRef{historyID(n / 2), table.TagRef}
		refs["audit"] = historyRef{historyID(n - 2), table.BranchRef}
	}
	return refs
}

func historyID(k int) int64 { return 7_000_000 + int64(k) }

// historyTable registers db.<name> on cat with n snapshots, as a long
// history leaves them: one snapshot-log entry per snapshot, min(n, 100)
// metadata-log entries and the refs of historyRefs. The manifest lists are
// named, not written: the catalog reads none.
func historyTable(t testing.TB, cat *katcatalog.Catalog, name string, n int) *table.Table {
	t.Helper()
	ctx := context.Background()
	id := table.Identifier{"db", name}
	if ok, _ := cat.CheckNamespaceExists(ctx, table.Identifier{"db"}); !ok {
		if err := cat.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	tbl, err := cat.CreateTable(ctx, id, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(tbl.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	ts := tbl.Metadata().LastUpdatedMillis()
	dir := strings.TrimSuffix(tbl.Location(), "/") + "/metadata/"
	var snaps, snapLog, metaLog []map[string]any
	for k := range n {
		s := map[string]any{
			"snapshot-id": historyID(k), "sequence-number": k + 1, "timestamp-ms": ts + int64(k) + 1,
			"manifest-list": fmt.Sprintf("%ssnap-%d.avro", dir, historyID(k)), "schema-id": 0,
			"summary": map[string]string{"operation": "append", "added-data-files": "1"},
		}
		if k > 0 {
			s["parent-snapshot-id"] = historyID(k - 1)
		}
		snaps = append(snaps, s)
		snapLog = append(snapLog, map[string]any{"timestamp-ms": ts + int64(k) + 1, "snapshot-id": historyID(k)})
	}
	for v := range min(n, 100) {
		metaLog = append(metaLog, map[string]any{"timestamp-ms": ts + int64(v), "metadata-file": fmt.Sprintf("%s%05d-old.metadata.json", dir, v)})
	}
	if n > 0 {
		refs := map[string]any{}
		for name, r := range historyRefs(n) {
			refs[name] = map[string]any{"snapshot-id": r.id, "type": string(r.typ)}
		}
		m["snapshots"], m["snapshot-log"], m["metadata-log"], m["refs"] = snaps, snapLog, metaLog, refs
		m["current-snapshot-id"] = historyID(n - 1)
		m["last-sequence-number"] = n
		m["last-updated-ms"] = ts + int64(n)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	loc := fmt.Sprintf("%s%05d-history.metadata.json", dir, min(n, 100)+1)
	if err := os.WriteFile(strings.TrimPrefix(loc, "file://"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cat.DropTable(ctx, id); err != nil {
		t.Fatal(err)
	}
	if tbl, err = cat.RegisterTable(ctx, id, loc); err != nil {
		t.Fatal(err)
	}
	if got := len(tbl.Metadata().Snapshots()); got != n {
		t.Fatalf("registered %d snapshots, want %d", got, n)
	}
	return tbl
}

// TestLoadTableRefsLongHistory: on a table of 300 snapshots, a refs answer
// parses in iceberg-go's client (asking in refs mode itself) and in a
// direct request, holds exactly the snapshots a ref names (every one of
// them) and keeps the snapshot log and metadata log whole, as the spec
// has it; the all answer holds every snapshot. For the spliced and the
// generic path.
func TestLoadTableRefsLongHistory(t *testing.T) {
	const n = 300
	for _, c := range frontPaths {
		t.Run(c.name, func(t *testing.T) {
			cat := newEmbedded(t)
			_, base := startServer(t, c.wrap(cat), Options{})
			tbl := historyTable(t, cat, "t", n)
			var want []int64
			for _, r := range historyRefs(n) {
				want = append(want, r.id)
			}
			slices.Sort(want)

			cl := newClient(t, base, rest.WithAdditionalProps(iceberg.Properties{"snapshot-loading-mode": "refs"}))
			got, err := cl.LoadTable(context.Background(), tbl.Identifier())
			if err != nil {
				t.Fatalf("iceberg-go client in refs mode: %v", err)
			}
			var ids []int64
			for _, s := range got.Metadata().Snapshots() {
				ids = append(ids, s.SnapshotID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, want) {
				t.Errorf("refs answer holds snapshots %v, want the refs' %v", ids, want)
			}
			for name, r := range historyRefs(n) {
				if ref := got.Metadata().SnapshotByName(name); ref == nil || ref.SnapshotID != r.id {
					t.Errorf("ref %s: snapshot %v, want %d", name, ref, r.id)
				}
			}
			if cur := got.CurrentSnapshot(); cur == nil || cur.SnapshotID != historyID(n-1) {
				t.Errorf("current snapshot %v, want %d", cur, historyID(n-1))
			}
			if l := countSeq(got.Metadata().SnapshotLogs()); l != n {
				t.Errorf("refs answer: %d snapshot-log entries, want all %d", l, n)
			}
			if l := countSeq(got.Metadata().PreviousFiles()); l != 100 {
				t.Errorf("refs answer: %d metadata-log entries, want all 100", l)
			}

			code, _, body := getURL(t, base+"/v1/namespaces/db/tables/t?snapshots=all", "")
			if ids := snapshotIDs(t, body); code != http.StatusOK || len(ids) != n {
				t.Errorf("snapshots=all: %d, %d snapshots; want 200, %d", code, len(ids), n)
			}
		})
	}
}

// TestLoadAfterCommitShowsNewVersion: the answers a server keeps are keyed
// by version, so after a commit through the front (and after one made on
// the catalog behind its back) a load in either mode answers the new
// snapshot, with a new ETag; the old tag no longer revalidates.
func TestLoadAfterCommitShowsNewVersion(t *testing.T) {
	for _, c := range frontPaths {
		t.Run(c.name, func(t *testing.T) {
			cat := newEmbedded(t)
			_, base := startServer(t, c.wrap(cat), Options{})
			historyTable(t, cat, "t", 20)
			cl := newClient(t, base)
			ctx, id := context.Background(), table.Identifier{"db", "t"}

			tags := map[string]string{}
			for _, mode := range []string{"all", "refs"} {
				code, tag, _ := getURL(t, base+tablePath+"?snapshots="+mode, "")
				if code != http.StatusOK || tag == "" {
					t.Fatalf("first load (%s): %d, tag %q", mode, code, tag)
				}
				if code, _, _ := getURL(t, base+tablePath+"?snapshots="+mode, tag); code != http.StatusNotModified {
					t.Fatalf("revalidate (%s): %d, want 304", mode, code)
				}
				tags[mode] = tag
			}
			for round, commit := range []func(next int64) error{
				func(next int64) error { // through the front, by iceberg-go's client
					_, _, err := cl.CommitTable(ctx, id, mainAt(next-1), appendSnapshot(next))
					return err
				},
				func(next int64) error { // on the catalog, which the front does not see
					_, _, err := cat.CommitTable(ctx, id, mainAt(next-1), appendSnapshot(next))
					return err
				},
			} {
				next := historyID(20 + round)
				if err := commit(next); err != nil {
					t.Fatalf("commit %d: %v", round, err)
				}
				for _, mode := range []string{"all", "refs"} {
					code, tag, body := getURL(t, base+tablePath+"?snapshots="+mode, tags[mode])
					if code != http.StatusOK {
						t.Fatalf("commit %d: load (%s) with the old tag: %d, want 200", round, mode, code)
					}
					if tag == tags[mode] {
						t.Errorf("commit %d: load (%s) kept the old tag", round, mode)
					}
					if ids := snapshotIDs(t, body); !slices.Contains(ids, next) {
						t.Errorf("commit %d: load (%s) answers snapshots %v, without the committed %d", round, mode, ids, next)
					}
					tags[mode] = tag
				}
				got, err := cl.LoadTable(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if cur := got.CurrentSnapshot(); cur == nil || cur.SnapshotID != next {
					t.Errorf("commit %d: iceberg-go loads current snapshot %v, want %d", round, cur, next)
				}
			}
		})
	}
}

// mainAt requires main at snapshot id.
func mainAt(id int64) []table.Requirement {
	return []table.Requirement{table.AssertRefSnapshotID(table.MainBranch, &id)}
}

// appendSnapshot adds snapshot id as main's newest.
func appendSnapshot(id int64) []table.Update {
	schemaID := 0
	snap := table.Snapshot{SnapshotID: id, SequenceNumber: id - historyID(0) + 1, TimestampMs: 4_102_444_800_000 + id,
		SchemaID: &schemaID, ManifestList: fmt.Sprintf("file:///nowhere/snap-%d.avro", id), Summary: &table.Summary{Operation: table.OpAppend}}
	return []table.Update{table.NewAddSnapshotUpdate(&snap), table.NewSetSnapshotRefUpdate(table.MainBranch, id, table.BranchRef, -1, -1, -1)}
}

func countSeq[T any](seq iter.Seq[T]) int {
	n := 0
	for range seq {
		n++
	}
	return n
}

// TestCreateAnswerRevalidates: the answer to a create is the new version's
// load answer, with its ETag: a load revalidated with that tag is 304, and
// the create body names the location a load names.
func TestCreateAnswerRevalidates(t *testing.T) {
	for _, c := range frontPaths {
		t.Run(c.name, func(t *testing.T) {
			cat := newEmbedded(t)
			_, base := startServer(t, c.wrap(cat), Options{})
			if err := cat.CreateNamespace(context.Background(), table.Identifier{"db"}, nil); err != nil {
				t.Fatal(err)
			}
			body := `{"name":"t","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}}`
			resp, err := http.Post(base+"/v1/namespaces/db/tables", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var created struct {
				Location string `json:"metadata-location"`
			}
			err = json.NewDecoder(resp.Body).Decode(&created)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || err != nil || created.Location == "" {
				t.Fatalf("create: %d, %v, location %q", resp.StatusCode, err, created.Location)
			}
			tag := resp.Header.Get("ETag")
			code, loadTag, _ := getURL(t, base+tablePath, "")
			if code != http.StatusOK || loadTag != tableETag(created.Location) {
				t.Fatalf("load: %d, tag %q; want 200 with the tag of %s", code, loadTag, created.Location)
			}
			if tag != loadTag {
				t.Errorf("create answered tag %q, load %q", tag, loadTag)
			}
			if code, _, _ := getURL(t, base+tablePath, loadTag); code != http.StatusNotModified {
				t.Errorf("load revalidated with the created version's tag: %d, want 304", code)
			}
		})
	}
}
