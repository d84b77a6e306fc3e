package scenarios

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/dataset"
)

// HistorySettings shape the history-depth levels and the listing page
// size as their flags give them (see RegisterFlags); Settings.Options
// checks them into Options.History and Options.PageSize.
type HistorySettings struct {
	Snapshots string // comma-separated snapshot counts
	Tables    int
	Build     string
	PageSize  int
}

// apply checks h into o; given reports which flags were given.
func (h HistorySettings) apply(o *Options, given func(string) bool) error {
	if given("page-size") && (h.PageSize < 1 || h.PageSize > 10_000) {
		return settingsf("--page-size %d: want 1..10000", h.PageSize)
	}
	o.PageSize = h.PageSize
	if h.Snapshots == "" {
		if given("snapshots") {
			return settingsf("--snapshots '': want snapshot counts like 0,100,1000 (leave the flag out for none)")
		}
		if given("history-tables") || given("history-build") {
			return settingsf("--history-tables and --history-build shape the --snapshots levels: give --snapshots too")
		}
		return nil
	}
	levels, err := dataset.ParseSnapshotLevels(h.Snapshots)
	if err != nil {
		return settingsf("--snapshots %q: %v", h.Snapshots, err)
	}
	o.History = dataset.History{Levels: levels, Tables: h.Tables, Build: h.Build}
	if err := o.History.Validate(); err != nil {
		return settingsf("--snapshots: %v", err)
	}
	return nil
}

// CheckDisk refuses (ErrSettings) a history that would need more than the
// free space of the file system under dir ("" for the temp dir) for n
// competitors, before anything is created.
func CheckDisk(o Options, dir string, n int) error {
	if !o.History.Enabled() {
		return nil
	}
	if dir == "" {
		dir = os.TempDir()
	}
	need := o.History.EstimateBytes(o.CreateOps) * int64(n)
	var st unix.Statfs_t
	for d := dir; ; {
		if err := unix.Statfs(d, &st); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil // no file system to ask: the build reports its own errors
		}
		d = parent
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if need > free {
		return settingsf("--snapshots %v: the history tables need about %s on %d competitor(s) (%d tables per level, %d commits each on them), "+
			"more than the %s free under %s; give fewer or smaller levels, fewer --history-tables, or --dir on a larger disk",
			o.History.Levels, byteSize(need), n, o.History.Tables, o.CreateOps, byteSize(free), dir)
	}
	return nil
}

// byteSize formats n bytes in binary units.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
