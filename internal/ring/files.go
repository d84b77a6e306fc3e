package ring

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Registered (fixed) files: a ring's table of descriptors the kernel
// holds a reference to, so an operation naming a slot (IOSQE_FIXED_FILE)
// skips the per-operation lookup and reference count of its descriptor.

// registerFileTable registers a table of n empty slots (-1) on r.
func (r *Ring) registerFileTable(n int) error {
	fds := make([]int32, n)
	for i := range fds {
		fds[i] = -1
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerFiles,
		uintptr(unsafe.Pointer(&fds[0])), uintptr(n), 0, 0)
	if errno != 0 {
		return fmt.Errorf("ring: IORING_REGISTER_FILES: %w", errno)
	}
	return nil
}

// updateFileSlot puts fd (-1: none) into slot i of r's file table; the
// slot's previous file loses the table's reference.
func (r *Ring) updateFileSlot(i uint32, fd int) error {
	v := int32(fd)
	up := filesUpdate{offset: i, fds: uint64(uintptr(unsafe.Pointer(&v)))}
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerFilesUpdate,
		uintptr(unsafe.Pointer(&up)), 1, 0, 0)
	if errno != 0 {
		return fmt.Errorf("ring: IORING_REGISTER_FILES_UPDATE: %w", errno)
	}
	if n != 1 {
		return fmt.Errorf("ring: IORING_REGISTER_FILES_UPDATE updated %d slots, want 1", n)
	}
	return nil
}

// UseFile registers the socket fd in the lane's slot of the shared ring's
// file table (one io_uring_register), when the ring was made with
// SharedOptions.FixedFiles: from then on the lane's operations on fd name
// the slot instead (IOSQE_FIXED_FILE). The table holds a reference to the
// socket, so closing fd does not close the socket until ReleaseFile (or
// the lane's Close, or another UseFile) empties the slot: release first.
// Without a file table it does nothing. Owner only, while the lane is
// quiet.
func (l *Lane) UseFile(fd int) error {
	if l.closed {
		return ErrClosed
	}
	if !l.s.fixed || fd < 0 {
		return nil
	}
	if err := l.s.r.updateFileSlot(l.id, fd); err != nil {
		return err
	}
	l.file = fd
	l.s.Stats.FileUpdates.Add(1)
	return nil
}

// ReleaseFile empties the lane's slot, dropping the table's reference to
// the file UseFile registered; then closing that descriptor closes the
// socket. Without a registered file it does nothing. Owner only, while the
// lane is quiet.
func (l *Lane) ReleaseFile() error {
	if l.file < 0 {
		return nil
	}
	if err := l.s.r.updateFileSlot(l.id, -1); err != nil {
		return err
	}
	l.file = -1
	l.s.Stats.FileUpdates.Add(1)
	return nil
}

// fixFile makes sqe name the lane's slot when it is for the registered
// file.
func (l *Lane) fixFile(sqe *SQE) {
	if l.file >= 0 && sqe.Fd == int32(l.file) {
		sqe.Fd = int32(l.id)
		sqe.Flags |= flagFixedFile
	}
}
