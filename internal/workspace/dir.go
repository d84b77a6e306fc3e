package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WorkDir returns the directory a run keeps its catalogs in: dir
// (created, checked writable) or, when dir is "", a fresh temp dir the
// caller removes (remove is true).
func WorkDir(dir string) (path string, remove bool, err error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "katbench-*")
		if err != nil {
			return "", false, fmt.Errorf("create temp dir: %w", err)
		}
		return d, true, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("--dir %s: %w", dir, err)
	}
	probe, err := os.CreateTemp(dir, ".katbench-probe-*")
	if err != nil {
		return "", false, fmt.Errorf("--dir %s is not writable: %w", dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return dir, false, nil
}

// RemoveTree removes dir and everything under it like os.RemoveAll,
// reporting the entries removed so far to report (task "removing the temp
// dir"), so a tree of many files is not a silent wait. A nil report reports
// nothing.
func RemoveTree(dir string, report func(what string, done, total int)) error {
	var paths []string
	walkErr := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil // an unreadable part is left to RemoveAll below
	})
	const what = "removing the temp dir (entries)"
	total := len(paths)
	var errs []error
	// Children come after their parent in walk order: remove backwards.
	for i := total - 1; i >= 0; i-- {
		if err := os.Remove(paths[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		// A small tree goes in a blink: no progress line for it.
		if done := total - i; report != nil && total >= 1024 && (done%256 == 0 || done == total) {
			report(what, done, total)
		}
	}
	if len(errs) > 0 || walkErr != nil {
		// Whatever the walk missed or could not remove one by one.
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
	}
	return nil
}
