package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/scenarios"
)

// historyFlags shape the history-depth levels (--snapshots,
// --history-tables, --history-build) and the listing page size.
type historyFlags struct {
	snapshots string
	tables    int
	build     string
	pageSize  int
}

func (h *historyFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&h.snapshots, "snapshots", "", "history depth levels, comma-separated snapshot counts (e.g. 0,100,1000): per level, "+
		"--history-tables tables with that many real snapshots, on which the load and commit scenarios run again (params.snapshots)")
	fl.IntVar(&h.tables, "history-tables", 3, "tables per --snapshots level")
	fl.StringVar(&h.build, "history-build", scenarios.HistoryAuto, "how the history tables are built: auto (register the generated metadata "+
		"where the competitor's client can, commits elsewhere), commits (add-snapshot commits through the catalog), register")
	fl.IntVar(&h.pageSize, "page-size", 0, fmt.Sprintf("page size the listing scenarios ask a paging client for (default %d)", scenarios.ListPageSize))
}

// apply validates the flags into o; changed reports which were given.
func (h *historyFlags) apply(o *scenarios.Options, changed func(string) bool) error {
	if changed("page-size") && (h.pageSize < 1 || h.pageSize > 10_000) {
		return usagef("--page-size %d: want 1..10000", h.pageSize)
	}
	o.PageSize = h.pageSize
	if h.snapshots == "" {
		if changed("snapshots") {
			return usagef("--snapshots '': want snapshot counts like 0,100,1000 (leave the flag out for none)")
		}
		if changed("history-tables") || changed("history-build") {
			return usagef("--history-tables and --history-build shape the --snapshots levels: give --snapshots too")
		}
		return nil
	}
	levels, err := scenarios.ParseSnapshotLevels(h.snapshots)
	if err != nil {
		return usagef("--snapshots %q: %v", h.snapshots, err)
	}
	o.History = scenarios.History{Levels: levels, Tables: h.tables, Build: h.build}
	if err := o.History.Validate(); err != nil {
		return usagef("--snapshots: %v", err)
	}
	return nil
}

// checkDisk refuses a history that would need more than the free space
// of the file system under dir ("" for the temp dir) for n competitors,
// before anything is created.
func checkDisk(o scenarios.Options, dir string, n int) error {
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
		return usagef("--snapshots %v: the history tables need about %s on %d competitor(s) (%d tables per level, %d commits each on them), "+
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
