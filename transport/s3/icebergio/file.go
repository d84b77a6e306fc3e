package icebergio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/minio/minio-go/v7"
)

// File is an object opened for reading. Read and Seek keep a position and
// are not safe for concurrent use; ReadAt keeps none and may be called
// concurrently with itself (as io.ReaderAt allows).
type File struct {
	fs   *FS
	loc  location
	info fileInfo

	pos    int64         // Read/Seek position
	body   io.ReadCloser // open ranged GET serving Read, or nil
	bodyAt int64         // object offset of body's next byte
	closed bool
}

// ErrClosed reports use of a File after Close.
var ErrClosed = errors.New("file already closed")

// Stat returns the object's size and modification time as of Open.
func (r *File) Stat() (fs.FileInfo, error) { return r.info, nil }

// Read reads from the current position, streaming one ranged GET from it
// until a Seek moves the position elsewhere.
func (r *File) Read(p []byte) (int, error) {
	if r.closed {
		return 0, &fs.PathError{Op: "read", Path: r.loc.String(), Err: ErrClosed}
	}
	if r.pos >= r.info.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if r.body == nil || r.bodyAt != r.pos {
		r.dropBody()
		body, err := r.get(r.pos, r.info.size-r.pos)
		if err != nil {
			return 0, err
		}
		r.body, r.bodyAt = body, r.pos
	}
	n, err := r.body.Read(p)
	r.pos += int64(n)
	r.bodyAt += int64(n)
	if errors.Is(err, io.EOF) {
		r.dropBody()
		if r.pos < r.info.size {
			return n, &fs.PathError{Op: "read", Path: r.loc.String(), Err: fmt.Errorf("S3 endpoint %s: body ended at %d of %d bytes: %w", r.fs.endpoint, r.pos, r.info.size, io.ErrUnexpectedEOF)}
		}
		err = nil
	}
	if err != nil {
		r.dropBody()
		return n, &fs.PathError{Op: "read", Path: r.loc.String(), Err: fmt.Errorf("S3 endpoint %s: %w", r.fs.endpoint, err)}
	}
	return n, nil
}

// ReadAt reads len(p) bytes at off with one ranged GET (none when off is at
// or past the end). Fewer bytes come back only at the end, with io.EOF.
func (r *File) ReadAt(p []byte, off int64) (int, error) {
	if r.closed {
		return 0, &fs.PathError{Op: "read", Path: r.loc.String(), Err: ErrClosed}
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: r.loc.String(), Err: fmt.Errorf("negative offset %d", off)}
	}
	if off >= r.info.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), r.info.size-off)
	if want == 0 {
		return 0, nil
	}
	body, err := r.get(off, want)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n, err := io.ReadFull(body, p[:want])
	if err != nil {
		return n, &fs.PathError{Op: "read", Path: r.loc.String(), Err: fmt.Errorf("S3 endpoint %s: ranged GET at %d: %w", r.fs.endpoint, off, err)}
	}
	if int64(len(p)) > want {
		return n, io.EOF
	}
	return n, nil
}

// Seek sets the position for the next Read; it does no I/O.
func (r *File) Seek(offset int64, whence int) (int64, error) {
	if r.closed {
		return 0, &fs.PathError{Op: "seek", Path: r.loc.String(), Err: ErrClosed}
	}
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.pos + offset
	case io.SeekEnd:
		abs = r.info.size + offset
	default:
		return 0, &fs.PathError{Op: "seek", Path: r.loc.String(), Err: fmt.Errorf("invalid whence %d", whence)}
	}
	if abs < 0 {
		return 0, &fs.PathError{Op: "seek", Path: r.loc.String(), Err: fmt.Errorf("negative position %d", abs)}
	}
	r.pos = abs
	return abs, nil
}

// Close releases the open GET, if any. Later calls return nil.
func (r *File) Close() error {
	r.closed = true
	r.dropBody()
	return nil
}

func (r *File) dropBody() {
	if r.body != nil {
		_ = r.body.Close()
		r.body = nil
	}
}

// get opens a GET of n bytes at off (n > 0).
func (r *File) get(off, n int64) (io.ReadCloser, error) {
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, off+n-1); err != nil {
		return nil, &fs.PathError{Op: "read", Path: r.loc.String(), Err: err}
	}
	body, _, _, err := r.fs.core.GetObject(context.Background(), r.loc.bucket, r.loc.key, opts)
	if err != nil {
		return nil, r.fs.pathError("read", r.loc, err)
	}
	return body, nil
}
