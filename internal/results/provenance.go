package results

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Host says where a line was measured. Lines from different hosts are never
// merged into one table.
type Host struct {
	Hostname string `json:"hostname"`
	Cores    int    `json:"cores"`
	// GOMAXPROCS is the number of Ps the process ran with, present only
	// when it differs from Cores (a GOMAXPROCS setting or a CPU quota):
	// the io_uring transport's wait and the scheduler's hand-offs depend
	// on it, so lines that differ in it are different cells.
	GOMAXPROCS int    `json:"gomaxprocs,omitempty"`
	CPU        string `json:"cpu"`
	Kernel     string `json:"kernel"`
	Go         string `json:"go"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

// Commit is the build's source revision. Source says where it came from:
// "buildinfo" (the binary's own vcs.revision / vcs.modified), "git" (the
// checkout the binary runs in), "ldflags" (BuildSHA) or "" (unknown).
type Commit struct {
	SHA    string `json:"sha"`
	Dirty  bool   `json:"dirty"`
	Source string `json:"source,omitempty"`
}

// unknownSHA is Commit.SHA when the build could not tell its revision.
const unknownSHA = "unknown"

// CommitNotRecorded stands where a commit would be named when the binary
// could not tell its revision.
const CommitNotRecorded = "not recorded (built without version control information)"

// Known reports whether the revision is known: a SHA that is neither
// empty nor "unknown". Whether an unknown revision was modified is not
// known either, so Dirty means something only when Known.
func (c Commit) Known() bool { return c.SHA != "" && c.SHA != unknownSHA }

// TreeKnown reports whether Dirty was checked: the revision is known and
// came from the build info or a checkout. BuildSHA (source "ldflags")
// names a revision but not whether the tree the binary was built from
// matched it.
func (c Commit) TreeKnown() bool { return c.Known() && c.Source != "ldflags" }

// TreeState says what is known of a known revision's tree: "clean",
// "dirty", or "unchecked" when nobody checked it (see TreeKnown).
func (c Commit) TreeState() string {
	switch {
	case !c.TreeKnown():
		return "unchecked"
	case c.Dirty:
		return "dirty"
	}
	return "clean"
}

// MarshalJSON writes dirty only when it was checked (TreeKnown): a line
// never claims a clean tree nobody looked at.
func (c Commit) MarshalJSON() ([]byte, error) {
	if !c.TreeKnown() {
		return json.Marshal(struct {
			SHA    string `json:"sha"`
			Source string `json:"source,omitempty"`
		}{c.SHA, c.Source})
	}
	type plain Commit // drops the method, avoids recursion
	return json.Marshal(plain(c))
}

// ThisHost reads this machine's provenance.
func ThisHost() Host {
	h := Host{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPU: cpuModel()}
	if p := runtime.GOMAXPROCS(0); p != h.Cores {
		h.GOMAXPROCS = p
	}
	h.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	return h
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// BuildSHA may be set at link time (-ldflags "-X …results.BuildSHA=…") for
// binaries built without version control information.
var BuildSHA string

// HistoryFile is the committed history of the README's runs. Appending to
// it does not make a build dirty: it is excluded from the dirty check.
const HistoryFile = "bench_history.jsonl"

var (
	commitOnce sync.Once
	commit     Commit
)

// ThisCommit returns the revision the binary was built from: the build
// info's vcs.revision and vcs.modified when the binary carries them (go
// build stamps them unless -buildvcs=false), else the git checkout of the
// working directory, else BuildSHA, else "unknown". Dirtiness ignores
// untracked files and HistoryFile; when the build info says modified and
// the binary runs in a checkout of the same revision, git decides, so a
// history file appended after the last commit does not mark a build dirty.
func ThisCommit() Commit {
	commitOnce.Do(func() {
		commit = Commit{SHA: unknownSHA}
		if bi, ok := debug.ReadBuildInfo(); ok {
			if c, ok := commitFromBuildInfo(bi); ok {
				commit = c
			}
		}
		if commit.Source == "buildinfo" && !commit.Dirty {
			return
		}
		if g, ok := commitFromGit("."); ok && (commit.Source == "" || g.SHA == commit.SHA) {
			commit = g
			return
		}
		if commit.Source == "" && BuildSHA != "" {
			commit = Commit{SHA: BuildSHA, Source: "ldflags"}
		}
	})
	return commit
}

// commitFromBuildInfo reads vcs.revision and vcs.modified.
func commitFromBuildInfo(bi *debug.BuildInfo) (Commit, bool) {
	c := Commit{Source: "buildinfo"}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			c.SHA = s.Value
		case "vcs.modified":
			c.Dirty = s.Value == "true"
		}
	}
	return c, c.SHA != ""
}

// commitFromGit asks git for the checkout at dir: HEAD, and whether a
// tracked file other than HistoryFile differs from it.
func commitFromGit(dir string) (Commit, bool) {
	out, err := gitIn(dir, "rev-parse", "HEAD")
	if err != nil {
		return Commit{}, false
	}
	c := Commit{SHA: strings.TrimSpace(string(out)), Source: "git"}
	st, err := gitIn(dir, "status", "--porcelain", "--untracked-files=no", "--", ":(top)", ":(top,exclude,glob)**/"+HistoryFile)
	c.Dirty = err != nil || len(strings.TrimSpace(string(st))) > 0
	return c, true
}

func gitIn(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	return cmd.Output()
}
