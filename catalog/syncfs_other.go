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
