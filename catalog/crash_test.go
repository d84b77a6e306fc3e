package catalog_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
)

// crashChildEnv, when set to a directory, turns the test binary into the
// crash test's child process (see TestMain).
const crashChildEnv = "KATBENCH_CATALOG_CRASH_CHILD"

// crashFlushEnv names the child's flush mode (catalog.Flush).
const crashFlushEnv = "KATBENCH_CATALOG_CRASH_FLUSH"

// crashLogEnv, when "1", makes the child write through the commit log.
const crashLogEnv = "KATBENCH_CATALOG_CRASH_LOG"

// crashIterEnv numbers the child's run, so its table names and snapshot ids
// never repeat across runs.
const crashIterEnv = "KATBENCH_CATALOG_CRASH_ITER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		iter, _ := strconv.Atoi(os.Getenv(crashIterEnv))
		if err := crashChild(dir, iter, catalog.Flush(os.Getenv(crashFlushEnv)), os.Getenv(crashLogEnv) == "1"); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var (
	crashNS     = table.Identifier{"crash"}
	crashShared = table.Identifier{"crash", "shared"}
)

const crashWorkers = 8

// crashChild writes to the catalog in dir from crashWorkers goroutines until
// it is killed, and prints one line per acknowledged write on stdout, after
// the call returned:
//
//	ack create <table>
//	ack commit <table> <seq>        (own table: property seq = <seq>)
//	ack shared <snapshot id>        (the shared table: snapshot appended)
//
// Each worker creates a table, commits to it three times, appends one
// snapshot to the shared table (retrying lost races), and starts over.
func crashChild(dir string, iter int, flush catalog.Flush, commitLog bool) error {
	ctx := context.Background()
	c, err := catalog.Open(ctx, catalog.Options{Dir: dir, Durability: catalog.Immediate, Flush: flush, CommitLog: commitLog, LockTimeout: 10 * time.Second})
	if err != nil {
		return err
	}
	var mu sync.Mutex
	ack := func(format string, args ...any) {
		line := fmt.Sprintf("ack "+format+"\n", args...)
		mu.Lock()
		_, _ = os.Stdout.WriteString(line) // one write(2): whole lines on the pipe
		mu.Unlock()
	}
	errs := make(chan error, crashWorkers)
	for w := range crashWorkers {
		go func() {
			for round := 0; ; round++ {
				id := table.Identifier{"crash", fmt.Sprintf("i%d_w%d_r%d", iter, w, round)}
				if _, err := c.CreateTable(ctx, id, testSchema); err != nil {
					errs <- err
					return
				}
				ack("create %s", strings.Join(id, "."))
				for seq := 1; seq <= 3; seq++ {
					if _, _, err := c.CommitTable(ctx, id, nil, []table.Update{
						table.NewSetPropertiesUpdate(iceberg.Properties{"seq": strconv.Itoa(seq)}),
					}); err != nil {
						errs <- err
						return
					}
					ack("commit %s %d", strings.Join(id, "."), seq)
				}
				snapID := int64(iter)*1_000_000 + int64(w)*10_000 + int64(round)
				for {
					meta, err := c.ResolveMetadata(ctx, crashShared)
					if err != nil {
						errs <- err
						return
					}
					reqs, ups := appendSnapshot(meta, snapID, nil)
					_, _, err = c.CommitTable(ctx, crashShared, reqs, ups)
					if errors.Is(err, table.ErrCommitFailed) {
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
				ack("shared %d", snapID)
			}
		}()
	}
	return <-errs
}

// crashAcks is what the children acknowledged, over every run.
type crashAcks struct {
	created map[string]bool
	seq     map[string]int // table → highest acknowledged seq
	shared  map[int64]bool // snapshot ids appended to the shared table
	n       int
}

func (a *crashAcks) add(line string) error {
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != "ack" {
		return nil // go test's own output
	}
	a.n++
	switch {
	case f[1] == "create":
		a.created[f[2]] = true
	case f[1] == "commit" && len(f) == 4:
		n, err := strconv.Atoi(f[3])
		if err != nil {
			return fmt.Errorf("bad ack %q", line)
		}
		a.seq[f[2]] = max(a.seq[f[2]], n)
	case f[1] == "shared":
		id, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("bad ack %q", line)
		}
		a.shared[id] = true
	default:
		return fmt.Errorf("bad ack %q", line)
	}
	return nil
}

// TestCrashKeepsAcknowledgedWrites runs a child process doing concurrent
// creates and commits in Immediate mode and kills it with SIGKILL at a
// random point, again and again on the same catalog, once per flush mode.
// After every kill the catalog must open, every acknowledged create and
// commit must be there, every acknowledged snapshot must be in the shared
// table's chain, and every pointer must name a metadata file that exists
// and parses. The commit-log runs write through the commit log and are
// verified by a catalog opened without it, which replays the log.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	for _, flush := range catalog.Flushes {
		t.Run(string(flush), func(t *testing.T) { testCrash(t, flush, false) })
	}
	for _, flush := range []catalog.Flush{catalog.FlushSyncfs, catalog.FlushUring} {
		t.Run("commit-log/"+string(flush), func(t *testing.T) { testCrash(t, flush, true) })
	}
}

func testCrash(t *testing.T, flush catalog.Flush, commitLog bool) {
	const kills = 12
	dir := t.TempDir()
	ctx := context.Background()
	func() {
		c := openAt(t, dir, catalog.Immediate)
		mustNS(t, c, crashNS...)
		mustTable(t, c, crashShared...)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}()

	acks := &crashAcks{created: map[string]bool{}, seq: map[string]int{}, shared: map[int64]bool{}}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	for iter := range kills {
		before := acks.n
		runCrashChild(t, dir, iter, flush, commitLog, time.Duration(rng.IntN(150))*time.Millisecond, acks)
		if acks.n == before {
			t.Fatalf("kill %d: the child acknowledged nothing", iter)
		}
		verifyAfterCrash(t, ctx, dir, acks)
	}
	t.Logf("%s: %d kills, %d acknowledged writes, %d tables, %d shared snapshots",
		flush, kills, acks.n, len(acks.created), len(acks.shared))
}

// runCrashChild starts the child, waits for its first acknowledgement plus
// delay, kills it with SIGKILL and collects every line it acknowledged.
func runCrashChild(t *testing.T, dir string, iter int, flush catalog.Flush, commitLog bool, delay time.Duration, acks *crashAcks) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	logOn := "0"
	if commitLog {
		logOn = "1"
	}
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, crashIterEnv+"="+strconv.Itoa(iter), crashFlushEnv+"="+string(flush), crashLogEnv+"="+logOn)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	var (
		killed   bool
		timer    <-chan time.Time // armed by the first acknowledgement
		deadline = time.After(30 * time.Second)
	)
	kill := func() {
		killed, timer, deadline = true, nil, nil
		if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
			t.Fatal(err)
		}
	}
	for open := true; open; {
		select {
		case line, ok := <-lines:
			if !ok {
				open = false
				break
			}
			if err := acks.add(line); err != nil {
				t.Error(err)
			}
			if timer == nil && !killed && strings.HasPrefix(line, "ack ") {
				timer = time.After(delay)
			}
		case <-timer:
			kill()
		case <-deadline:
			kill() // a child that acknowledges nothing in 30s: the caller fails
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("kill %d: child exited on its own (%v): %s", iter, err, stderr.String())
	}
}

// verifyAfterCrash reopens the catalog and checks every acknowledgement.
func verifyAfterCrash(t *testing.T, ctx context.Context, dir string, acks *crashAcks) {
	t.Helper()
	c, err := catalog.Open(ctx, catalog.Options{Dir: dir, Durability: catalog.Immediate, LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer c.Close()

	// Every pointer names a file that exists and parses (a fresh Catalog
	// reads and parses each on first load).
	present := map[string]bool{}
	for id, err := range c.ListTables(ctx, crashNS) {
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := c.LoadTable(ctx, id)
		if err != nil {
			t.Fatalf("pointer of %v: %v", id, err)
		}
		present[strings.Join(id, ".")] = true
		if name := strings.Join(id, "."); acks.seq[name] > 0 {
			got, _ := strconv.Atoi(tbl.Properties()["seq"])
			if got < acks.seq[name] {
				t.Errorf("%s: seq = %d, but %d was acknowledged", name, got, acks.seq[name])
			}
		}
	}
	for name := range acks.created {
		if !present[name] {
			t.Errorf("acknowledged table %s is missing", name)
		}
	}
	meta, err := c.ResolveMetadata(ctx, crashShared)
	if err != nil {
		t.Fatal(err)
	}
	inChain := map[int64]bool{}
	for s := meta.CurrentSnapshot(); s != nil; {
		inChain[s.SnapshotID] = true
		if s.ParentSnapshotID == nil {
			break
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	for id := range acks.shared {
		if !inChain[id] {
			t.Errorf("acknowledged snapshot %d is not in the shared table's chain", id)
		}
	}
}
