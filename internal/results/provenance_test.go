package results

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestCommitFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     Commit
		ok       bool
	}{
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, Commit{SHA: "abc", Source: "buildinfo"}, true},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}, Commit{SHA: "abc", Dirty: true, Source: "buildinfo"}, true},
		{[]debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}, Commit{Source: "buildinfo"}, false},
	} {
		got, ok := commitFromBuildInfo(&debug.BuildInfo{Settings: c.settings})
		if got != c.want || ok != c.ok {
			t.Errorf("%v: got %+v, %v; want %+v, %v", c.settings, got, ok, c.want, c.ok)
		}
	}
}

// TestGitDirtinessIgnoresTheHistoryFile: appending to the committed history
// (in any directory) leaves a build clean; changing another tracked file
// makes it dirty.
func TestGitDirtinessIgnoresTheHistoryFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write(HistoryFile, "{}\n")
	write("sub/"+HistoryFile, "{}\n")
	write("main.go", "package main\n")
	git("add", ".")
	git("commit", "-qm", "x")
	write(HistoryFile, "{}\n{}\n")
	write("sub/"+HistoryFile, "{}\n{}\n")
	write("untracked.txt", "x")
	c, ok := commitFromGit(filepath.Join(dir, "sub"))
	if !ok || c.Dirty || c.Source != "git" || len(c.SHA) != 40 {
		t.Fatalf("after appending to the history: %+v, %v; want a clean git commit", c, ok)
	}
	write("main.go", "package main // changed\n")
	if c, _ := commitFromGit(filepath.Join(dir, "sub")); !c.Dirty {
		t.Fatal("a changed tracked file does not make the build dirty")
	}
}

// TestThisHostRecordsGOMAXPROCS: the field is present exactly when the
// process runs with a number of Ps other than its cores.
func TestThisHostRecordsGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU()))
	if h := ThisHost(); h.GOMAXPROCS != 0 {
		t.Errorf("one P per core: gomaxprocs %d, want absent", h.GOMAXPROCS)
	}
	runtime.GOMAXPROCS(runtime.NumCPU() + 1)
	if h := ThisHost(); h.GOMAXPROCS != runtime.NumCPU()+1 {
		t.Errorf("GOMAXPROCS %d: recorded %d", runtime.NumCPU()+1, h.GOMAXPROCS)
	}
	b, err := json.Marshal(Host{Cores: 2})
	if err != nil || strings.Contains(string(b), "gomaxprocs") {
		t.Errorf("a host with one P per core marshals as %s, %v", b, err)
	}
}

// TestCommitJSONClaimsNothingUnknown: a line whose build's revision is
// unknown, or named by BuildSHA alone, carries no "dirty" (it would claim
// a clean tree nobody checked), on measured and skipped lines alike; a
// revision from the build info or a checkout always carries it, false
// included, and reads back as it was.
func TestCommitJSONClaimsNothingUnknown(t *testing.T) {
	commitOf := func(t *testing.T, r Record) map[string]any {
		t.Helper()
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var line struct {
			Commit map[string]any `json:"commit"`
		}
		if err := json.Unmarshal(raw, &line); err != nil {
			t.Fatal(err)
		}
		return line.Commit
	}
	for _, c := range []struct {
		commit Commit
		dirty  any // nil: absent
	}{
		{Commit{SHA: "unknown"}, nil},
		{Commit{}, nil},
		{Commit{SHA: "unknown", Dirty: true}, nil},
		{Commit{SHA: "abc", Source: "git"}, false},
		{Commit{SHA: "abc", Dirty: true, Source: "buildinfo"}, true},
		{Commit{SHA: "abc", Source: "ldflags"}, nil},
	} {
		for _, skipped := range []string{"", "not run here"} {
			got := commitOf(t, Record{Commit: c.commit, Skipped: skipped, Params: map[string]any{}})
			d, present := got["dirty"]
			if (c.dirty == nil) == present || (present && d != c.dirty) {
				t.Errorf("%+v (skipped %q): commit %v, want dirty %v", c.commit, skipped, got, c.dirty)
			}
			if got["sha"] != c.commit.SHA {
				t.Errorf("%+v: sha %v", c.commit, got["sha"])
			}
		}
		if !c.commit.TreeKnown() {
			continue
		}
		raw, err := json.Marshal(c.commit)
		if err != nil {
			t.Fatal(err)
		}
		var back Commit
		if err := json.Unmarshal(raw, &back); err != nil || back != c.commit {
			t.Errorf("%s read back as %+v (%v), want %+v", raw, back, err, c.commit)
		}
	}
}
