package results

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Host says where a line was measured. Lines from different hosts are never
// merged into one table.
type Host struct {
	Hostname string `json:"hostname"`
	Cores    int    `json:"cores"`
	CPU      string `json:"cpu"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// Commit is the build's source revision.
type Commit struct {
	SHA   string `json:"sha"`
	Dirty bool   `json:"dirty"`
}

// ThisHost reads this machine's provenance.
func ThisHost() Host {
	h := Host{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPU: cpuModel()}
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
// binaries built outside a checkout.
var BuildSHA string

var (
	commitOnce sync.Once
	commit     Commit
)

// ThisCommit returns the git revision of the working tree the binary runs
// from (go run and make both run inside the checkout), with a dirty flag,
// falling back to BuildSHA and then "unknown".
func ThisCommit() Commit {
	commitOnce.Do(func() {
		commit = Commit{SHA: "unknown"}
		if BuildSHA != "" {
			commit.SHA = BuildSHA
		}
		out, err := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil {
			return
		}
		commit.SHA = strings.TrimSpace(string(out))
		st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
		commit.Dirty = err == nil && len(strings.TrimSpace(string(st))) > 0
	})
	return commit
}
