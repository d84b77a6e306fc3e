package catalog

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// statDev returns the device of a stat result.
func statDev(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true //nolint:unconvert // Dev is uint32 on some Linux ports
}

// syncfs commits every dirty file, directory entry and inode of the file
// system f is on, and reports write-back errors of that file system since
// f was opened (Linux 5.8 and later).
func syncfs(f *os.File) error { return onFD(f, unix.Syncfs) }

// fdatasync flushes f's data and the metadata needed to read it back.
func fdatasync(f *os.File) error { return onFD(f, unix.Fdatasync) }

// onFD calls sync on f's descriptor, again while it is interrupted (EINTR).
func onFD(f *os.File, sync func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if serr = sync(int(fd)); serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}

// renameNoReplace renames from to to, failing when to exists
// (renameat2's RENAME_NOREPLACE; a file system without it fails, and the
// caller falls back).
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}
