package commitcheck_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/commitcheck"
	"github.com/nordisk/katbench/internal/results"
)

// childEnv makes the test binary a storm's writers (RunChild on the spec
// in its last argument) instead of running the tests.
const childEnv = "KATBENCH_TEST_COMMITCHECK_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		spec, err := commitcheck.ParseChildSpec(os.Args[len(os.Args)-1])
		if err == nil {
			err = commitcheck.RunChild(context.Background(), spec, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// lockedBuffer is a bytes.Buffer safe for the child's stderr copier and
// the test to share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestOnDiskCatalogSurvivesKilledWriterProcess: the embedded catalog on
// disk, with and without its commit log, committed to by a child process
// that reports each acknowledgement after it; the child is killed with
// SIGKILL after a random number of reported events (several times,
// restarted on the same files each time), then the test opens the
// catalog itself: nothing acknowledged is lost, and no other anomaly.
func TestOnDiskCatalogSurvivesKilledWriterProcess(t *testing.T) {
	const kills, lastCommits = 5, 40
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childEnv, "1")
	for i, name := range []string{"embedded", "embedded-log"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			fac, err := competitors.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			open := func() competitors.Competitor {
				t.Helper()
				comp, err := fac.New(ctx, competitors.Config{Dir: dir})
				if err != nil {
					t.Fatal(err)
				}
				return comp
			}
			s := commitcheck.Storm{Namespace: table.Identifier{"verify"}, Prefix: "crash", Tables: 2, Writers: 8, Commits: 1, Retries: 50}
			comp := open()
			s.Catalog = comp.Catalog()
			if err := s.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			if err := comp.Close(); err != nil {
				t.Fatal(err)
			}

			spec := commitcheck.ChildSpec{Competitor: name, Dir: dir, Namespace: s.Namespace, Prefix: s.Prefix,
				Tables: s.Tables, Writers: s.Writers, Commits: 1 << 20, Retries: s.Retries,
				Backoff: commitcheck.Backoff{Min: time.Millisecond, Max: 50 * time.Millisecond}}
			events := make(chan bool, 1<<16) // done or begun, in the order read
			var stderr lockedBuffer
			cw := &commitcheck.ChildWriters{Stderr: &stderr,
				Argv: func(g int) []string {
					sp := spec
					sp.Markers = fmt.Sprintf("crash-g%d", g)
					if g == kills {
						sp.Commits = lastCommits // the last generation ends by itself
					}
					return commitcheck.ChildArgv([]string{exe}, sp)
				},
				OnEvent: func(a commitcheck.Attempt, done bool) { events <- done }}
			if err := cw.Start(ctx); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for k := range kills {
				// Kill after a random number of events: right after a
				// commit began as well as right after an answer.
				for n := 1 + rng.IntN(80); n > 0; n-- {
					select {
					case <-events:
					case <-cw.Done():
						t.Fatalf("generation %d exited before its kill:\n%s", k, stderr.String())
					}
				}
				if err := cw.Kill(); err != nil {
					t.Fatal(err)
				}
				if err := cw.Restart(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := cw.Wait(); err != nil {
				t.Fatalf("last generation: %v\n%s", err, stderr.String())
			}

			comp = open()
			t.Cleanup(func() { _ = comp.Close() })
			rep, err := commitcheck.Check(ctx, comp.Catalog(), s.Idents(), cw.Attempts())
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range rep.Anomalies {
				t.Errorf("%s", a)
			}
			if cw.Generations() != kills+1 || rep.Acked < lastCommits/2 {
				t.Errorf("%d generations, %d acknowledged; want %d generations and the last one's commits acknowledged", cw.Generations(), rep.Acked, kills+1)
			}
			t.Logf("%s: %d kills, acknowledged %d, refused %d, indeterminate %d (present %d, absent %d)", name, kills,
				rep.Acked, rep.Refused, rep.Indeterminate, rep.IndeterminatePresent, rep.IndeterminateAbsent)
		})
	}
}

// TestParseChildSpecRejectsBadInput: a spec that is not JSON, has an
// unknown field or lacks what a child needs is an error, never a start.
func TestParseChildSpecRejectsBadInput(t *testing.T) {
	good := commitcheck.ChildArgv(nil, commitcheck.ChildSpec{Competitor: "embedded", Dir: "/d", Namespace: []string{"n"}, Prefix: "p",
		Markers: "p-g0", Tables: 1, Writers: 2, Commits: 3, Retries: 4, Backoff: commitcheck.Backoff{Min: time.Millisecond, Max: time.Second}})[0]
	spec, err := commitcheck.ParseChildSpec(good)
	if err != nil || spec.Writers != 2 || spec.Backoff.Max != time.Second || spec.Markers != "p-g0" {
		t.Fatalf("round trip: %+v, %v", spec, err)
	}
	for _, bad := range []string{"", "{", "[]", `{"competitor":"embedded"}`, `{"competitor":"embedded","dir":"/d","tables":1,"writers":1}`,
		`{"competitor":"embedded","dir":"/d","tables":1,"writers":1,"commits":1,"extra":1}`, `{"competitor":"embedded","dir":"/d","tables":0,"writers":1,"commits":1}`} {
		if _, err := commitcheck.ParseChildSpec(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseChildSpec(f *testing.F) {
	f.Add(`{"competitor":"embedded","dir":"/d","tables":1,"writers":1,"commits":1}`)
	f.Add(`{"until":"2026-01-01T00:00:00Z"}`)
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := commitcheck.ParseChildSpec(s)
		if err == nil && (spec.Competitor == "" || spec.Tables < 1 || spec.Writers < 1) {
			t.Errorf("%q accepted as %+v", s, spec)
		}
	})
}

// TestLineSplitsTryTime: a storm's line says where a try's time went, and
// the parts the client waited on fit in the attempts' time.
func TestLineSplitsTryTime(t *testing.T) {
	ctx := context.Background()
	cat := openEmbedded(t, t.TempDir())
	t.Cleanup(func() { _ = cat.Close() })
	s := commitcheck.Storm{Catalog: cat, Namespace: table.Identifier{"verify"}, Prefix: "split", Tables: 1, Writers: 4, Commits: 40,
		Retries: 50, Backoff: commitcheck.Backoff{Min: time.Millisecond, Max: 5 * time.Millisecond}}
	if err := s.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	res := s.Run(ctx)
	var spent, total time.Duration
	for _, a := range res.Log.Attempts() {
		p := a.Spent
		if p.Load < 0 || p.Write < 0 || p.Commit <= 0 || p.Backoff < 0 || (a.Conflicts > 0 && p.Backoff == 0) {
			t.Errorf("%s: split %+v with %d conflicts", a.Marker, p, a.Conflicts)
		}
		spent += p.Load + p.Write + p.Commit + p.Backoff
		total += a.Latency
	}
	if spent > total {
		t.Errorf("the parts (%v) exceed the attempts' time (%v)", spent, total)
	}
	line := s.Line(results.NewRun(), "embedded", res, nil, nil)
	for _, m := range []string{"load_ms", "write_ms", "commit_call_ms", "backoff_pct"} {
		if _, ok := line.MeasureValue(m); !ok {
			t.Errorf("line has no %s: %v", m, line.Measures)
		}
	}
	if line.Params["commit_backoff"] != "1ms:5ms" {
		t.Errorf("commit_backoff = %v", line.Params["commit_backoff"])
	}
}

// TestChildWritersReportAChildThatFails: writers that end by themselves
// with an error (here: a competitor that does not exist) fail the kill and
// the wait, so a run whose children never committed cannot pass as a
// clean check.
func TestChildWritersReportAChildThatFails(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childEnv, "1")
	spec := commitcheck.ChildSpec{Competitor: "nosuch", Dir: t.TempDir(), Namespace: []string{"n"}, Prefix: "p", Tables: 1, Writers: 1, Commits: 1}
	var stderr lockedBuffer
	cw := &commitcheck.ChildWriters{Stderr: &stderr, Argv: func(int) []string { return commitcheck.ChildArgv([]string{exe}, spec) }}
	if err := cw.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-cw.Done()
	if err := cw.Kill(); err == nil || !strings.Contains(err.Error(), "ended by themselves") {
		t.Errorf("Kill after the child failed: %v (stderr %s)", err, stderr.String())
	}
	if err := cw.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := cw.Wait(); err == nil {
		t.Errorf("Wait on a failing child: no error (stderr %s)", stderr.String())
	}
}
