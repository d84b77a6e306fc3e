package dataplane

import (
	"runtime/debug"
	"syscall"

	"github.com/nordisk/katbench/internal/workspace"
)

// defaultTargetFileSize is iceberg-go's write.target-file-size-bytes
// default, used when a run leaves the target unset.
const defaultTargetFileSize = 512 << 20

// minAppendMemoryLimit is the floor of [AppendMemoryLimit]: what an
// append holds whatever the target (about 80 MiB measured: arrow-go's
// pooled zstd encoders, 16 MiB of history each, two of them after a
// collection; per-column page and compression buffers; two 5 MiB
// multipart parts; two generated batches) plus room for the collector.
const minAppendMemoryLimit = 128 << 20

// AppendMemoryLimit is the Go memory limit (runtime/debug.SetMemoryLimit)
// an append writing files of targetFileSize bytes (0: iceberg-go's default)
// runs under: twice the target, at least 128 MiB. What an append holds
// beyond that floor grows with the target, not with the row count: the
// buffered row group and its copy at close ([RowGroupBytes] each) and the
// generated batches ([LiveBatches]). The limit makes the collector keep the
// heap near it instead of at twice the live heap (GOGC=100); it is soft: a
// larger live heap is still served, with more collections.
func AppendMemoryLimit(targetFileSize int64) int64 {
	if targetFileSize <= 0 {
		targetFileSize = defaultTargetFileSize
	}
	return max(2*targetFileSize, minAppendMemoryLimit)
}

// withMemoryLimit runs fn under the Go memory limit limit and restores the
// process's limit afterwards; limit ≤ 0 runs fn under the process's limit.
// The limit is process-wide: Run is the only caller and uses lanes from
// one goroutine.
func withMemoryLimit(limit int64, fn func()) {
	if limit <= 0 {
		fn()
		return
	}
	prev := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(prev)
	fn()
}

// peakRSS is the process's peak resident set size so far in bytes
// (getrusage's ru_maxrss, what /usr/bin/time -v reports), or 0 where it is
// not available.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux
}

// StoreMemoryLimit is Config.MemoryLimit of a run on store: none when the
// user set the process's own limit (userLimit: GOMEMLIMIT wins) or when
// the warehouse is on the in-process control store, whose objects are on
// this process's heap: the live heap would outgrow a limit sized for the
// append and the collector would run nearly continuously.
func StoreMemoryLimit(targetFileSize int64, store *workspace.Store, userLimit bool) int64 {
	if userLimit || store.InProcess() {
		return 0
	}
	return AppendMemoryLimit(targetFileSize)
}
