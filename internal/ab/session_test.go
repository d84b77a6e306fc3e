package ab

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestOrderIsABBA(t *testing.T) {
	got := Order(3)
	want := []string{Old, New, New, Old, Old, New}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Order(3) = %v, want %v", got, want)
	}
}

// script writes an executable that prints one result line naming its side
// (from the environment) and its arguments, or fails when FAIL is set.
func script(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	body := `#!/bin/sh
if [ -n "$FAIL" ]; then echo "broken measurement" >&2; exit 3; fi
printf '{"run_id":"%s","target":"t","scenario":"s","ops":1,"p50_us":1,"args":"%s"}\n' "$$" "$*"
`
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecuteRunsFreshProcessesInOrder(t *testing.T) {
	dir := t.TempDir()
	a, b := script(t, dir, "a"), script(t, dir, "b")
	var out, log bytes.Buffer
	loads := []float64{9, 9, 1, 1, 1, 1, 1, 5, 1, 1}
	var slept []time.Duration
	o := Options{
		Old: Side{Ref: "a", Bin: a}, New: Side{Ref: "rev", Bin: b, Revision: "abc"},
		Runs: 2, Args: []string{"run", "x"}, Cooldown: 3 * time.Second,
		MaxLoad: 2, LoadWait: 5 * time.Second, Out: &out, Log: &log,
		Load: func() (float64, error) {
			l := loads[0]
			if len(loads) > 1 {
				loads = loads[1:]
			}
			return l, nil
		},
		Sleep: func(_ context.Context, d time.Duration) { slept = append(slept, d) },
	}
	sum, err := Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(sum.Runs))
	}
	var sides, pids []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			RunID string `json:"run_id"`
			Args  string `json:"args"`
			AB    Run    `json:"ab"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if m.Args != "run x --format jsonl" {
			t.Fatalf("args %q", m.Args)
		}
		sides = append(sides, m.AB.Side)
		pids = append(pids, m.RunID)
		if m.AB.Side == New && m.AB.Rev != "abc" {
			t.Fatalf("new line without its revision: %+v", m.AB)
		}
	}
	if !reflect.DeepEqual(sides, []string{Old, New, New, Old}) {
		t.Fatalf("sides %v", sides)
	}
	for i := range pids {
		for j := range i {
			if pids[i] == pids[j] {
				t.Fatalf("runs %d and %d share a process (%s)", i, j, pids[i])
			}
		}
	}
	// The first run waited for the load (9 → 9 → 1): two polls.
	if sum.Runs[0].Load1 != 1 || !sum.Runs[0].LoadOK {
		t.Fatalf("first run %+v: want it to start once the load dropped", sum.Runs[0])
	}
	// A run that ended above the limit is recorded so.
	if sum.OverLoad != 1 {
		t.Fatalf("over-load runs %d, want 1 (%+v)", sum.OverLoad, sum.Runs)
	}
	cool := 0
	for _, d := range slept {
		if d == 3*time.Second {
			cool++
		}
	}
	if cool != 3 {
		t.Fatalf("cool-downs %d, want 3 (slept %v)", cool, slept)
	}
}

func TestExecuteStopsAtAFailedRun(t *testing.T) {
	dir := t.TempDir()
	a := script(t, dir, "a")
	var out bytes.Buffer
	_, err := Execute(context.Background(), Options{
		Old: Side{Ref: "a", Bin: a}, New: Side{Ref: "b", Bin: a, Env: []string{"FAIL=1"}},
		Runs: 2, Args: []string{"run"}, Out: &out,
		Load: func() (float64, error) { return 0, nil }, Sleep: func(context.Context, time.Duration) {},
	})
	if !errors.Is(err, ErrRun) || !strings.Contains(err.Error(), "broken measurement") || !strings.Contains(err.Error(), "new run 1") {
		t.Fatalf("err = %v; want the new side's first run failing, with its stderr", err)
	}
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Fatalf("%d lines written, want the one old run's", n)
	}
}

func TestResolveRejectsWhatIsNeither(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t)
	for _, ref := range []string{plain, "no-such-rev", "--upload-pack=x"} {
		if _, err := Resolve(context.Background(), ref, repo, dir, nil); !errors.Is(err, ErrNotABuild) {
			t.Errorf("Resolve(%q) err = %v, want ErrNotABuild", ref, err)
		}
	}
}

// gitRepo makes a repository with a tiny ./cmd/katbench that prints a
// result line, committed once and then left dirty.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git: %v", err)
	}
	repo := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/kb\n\ngo 1.22\n")
	write("cmd/katbench/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(`{\"run_id\":\"r\",\"target\":\"t\",\"scenario\":\"committed\",\"ops\":1}`) }\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write("cmd/katbench/main.go", "package main\n\nfunc main() { panic(\"uncommitted\") }\n")
	return repo
}

// A revision is built from the commit, never from the dirty working tree,
// and the repository is left as it was.
func TestBuildUsesTheCommitNotTheTree(t *testing.T) {
	repo := gitRepo(t)
	dir := t.TempDir()
	side, err := Resolve(context.Background(), "HEAD", repo, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(side.Revision) != 40 {
		t.Fatalf("revision %q", side.Revision)
	}
	bi, err := buildinfo.ReadFile(side.Bin)
	if err != nil {
		t.Fatal(err)
	}
	stamped := map[string]string{}
	for _, st := range bi.Settings {
		stamped[st.Key] = st.Value
	}
	if stamped["vcs.revision"] != side.Revision || stamped["vcs.modified"] != "false" {
		t.Fatalf("binary stamped %v, want revision %s, unmodified", stamped, side.Revision)
	}
	out, err := exec.Command(side.Bin).Output()
	if err != nil || !strings.Contains(string(out), `"scenario":"committed"`) {
		t.Fatalf("built binary printed %q, %v; want the committed program", out, err)
	}
	st, err := exec.Command("git", "-C", repo, "status", "--porcelain").Output()
	if err != nil || strings.TrimSpace(string(st)) != "M cmd/katbench/main.go" {
		t.Fatalf("repository status %q, %v; want only the caller's own change", st, err)
	}
	wt, err := exec.Command("git", "-C", repo, "worktree", "list").Output()
	if err != nil || strings.Count(strings.TrimSpace(string(wt)), "\n") != 0 {
		t.Fatalf("worktree list %q: want the repository's own only", wt)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("build dir holds %d entries, want the binary alone (the checkout removed)", len(ents))
	}
}
