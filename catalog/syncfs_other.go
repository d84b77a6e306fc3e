//go:build !linux

package catalog

import (
	"errors"
	"io/fs"
	"os"
)

// statDev reports no device: without syncfs every file is fsynced.
func statDev(fs.FileInfo) (uint64, bool) { return 0, false }

func syncfs(*os.File) error { return errors.ErrUnsupported }

// fdatasync is fsync where fdatasync is not at hand.
func fdatasync(f *os.File) error { return f.Sync() }

// renameNoReplace is not available: the caller writes the file itself.
func renameNoReplace(string, string) error { return errors.ErrUnsupported }
