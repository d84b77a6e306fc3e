package restserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// firstCommitBody reads one of the request bodies scripts/repro/first-commit.sh
// sends and fills in its placeholders, so this test and the script send the
// same requests.
func firstCommitBody(t *testing.T, name string, repl ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "scripts", "repro", name))
	if err != nil {
		t.Fatalf("read request body: %v", err)
	}
	return strings.NewReplacer(repl...).Replace(string(b))
}

// TestFirstCommitRequirement sends scripts/repro/first-commit.sh's two
// commits: each adds a first snapshot under assert-ref-snapshot-id for main
// with snapshot-id null ("main must not exist yet"). The REST specification
// makes the second a conflict, since the first created main; a server that
// acknowledges it has replaced an acknowledged commit.
func TestFirstCommitRequirement(t *testing.T) {
	_, base := startServer(t, newEmbedded(t), Options{})
	if code, body, _ := do(t, "POST", base+"/v1/namespaces", "", `{"namespace":["katbench_repro"]}`); code != 200 {
		t.Fatalf("create namespace: %d %s", code, body)
	}
	code, body, _ := do(t, "POST", base+"/v1/namespaces/katbench_repro/tables", "",
		firstCommitBody(t, "first-commit-create.json", "@TABLE@", "t"))
	if code != 200 {
		t.Fatalf("create table: %d %s", code, body)
	}
	var created struct {
		Metadata struct {
			Location string `json:"location"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &created); err != nil || created.Metadata.Location == "" {
		t.Fatalf("create table answered no location (%v): %s", err, body)
	}
	commit := func(writer, snapshot string) (int, string) {
		code, body, _ := do(t, "POST", base+"/v1/namespaces/katbench_repro/tables/t", "",
			firstCommitBody(t, "first-commit-commit.json",
				"@LOCATION@", created.Metadata.Location, "@SNAPSHOT@", snapshot, "@WRITER@", writer,
				"@TIMESTAMP@", strconv.FormatInt(time.Now().UnixMilli(), 10)))
		return code, body
	}
	if code, body := commit("A", "1001"); code != 200 {
		t.Fatalf("first commit: %d %s, want 200", code, body)
	}
	code, body = commit("B", "1002")
	if code != 409 || !strings.Contains(body, "CommitFailedException") {
		t.Fatalf("second commit with main already existing: %d %s, want 409 CommitFailedException", code, body)
	}

	code, body, _ = do(t, "GET", base+"/v1/namespaces/katbench_repro/tables/t", "", "")
	if code != 200 {
		t.Fatalf("load table: %d %s", code, body)
	}
	var loaded struct {
		Metadata struct {
			Refs map[string]struct {
				SnapshotID int64 `json:"snapshot-id"`
			} `json:"refs"`
			Snapshots []struct {
				SnapshotID int64             `json:"snapshot-id"`
				Summary    map[string]string `json:"summary"`
			} `json:"snapshots"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &loaded); err != nil {
		t.Fatalf("decode loaded table: %v", err)
	}
	if got := loaded.Metadata.Refs["main"].SnapshotID; got != 1001 {
		t.Errorf("main = snapshot %d, want 1001 (the acknowledged first commit)", got)
	}
	if s := loaded.Metadata.Snapshots; len(s) != 1 || s[0].SnapshotID != 1001 || s[0].Summary["repro.writer"] != "A" {
		t.Errorf("snapshots = %+v, want only 1001 by writer A", s)
	}
}
