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
