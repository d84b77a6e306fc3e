package icebergio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"time"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

func init() {
	for _, scheme := range Schemes {
		icebergio.Register(scheme, factory)
	}
}

// factory is the io.SchemeFactory registered for Schemes. The location only
// selects the scheme: an FS serves every bucket on its endpoint.
func factory(_ context.Context, _ *url.URL, props map[string]string) (icebergio.IO, error) {
	return New(props)
}

// FS is iceberg-go's IO over katbench's S3 client. See the package
// documentation for its semantics. Safe for concurrent use.
type FS struct {
	client   *minio.Client
	core     minio.Core
	info     s3.Info
	endpoint string
	region   string
	partSize int
}

var (
	_ icebergio.IO          = (*FS)(nil)
	_ icebergio.ReadFileIO  = (*FS)(nil)
	_ icebergio.WriteFileIO = (*FS)(nil)
	_ icebergio.StatIO      = (*FS)(nil)
)

// New returns an FS configured by props (see the package documentation).
// It does no I/O: a wrong endpoint or wrong keys show on the first request,
// or use Check to find out up front.
func New(props map[string]string) (*FS, error) {
	st, err := parseSettings(props)
	if err != nil {
		return nil, fmt.Errorf("s3 io: %w", err)
	}
	sc, err := clientFor(st)
	if err != nil {
		return nil, err
	}
	return &FS{
		client:   sc.client,
		core:     minio.Core{Client: sc.client},
		info:     sc.info,
		endpoint: st.key.endpoint,
		region:   st.key.region,
		partSize: st.partSize,
	}, nil
}

// Endpoint is the S3 endpoint the FS talks to.
func (f *FS) Endpoint() string { return f.endpoint }

// Transport says which byte transport the FS's requests really go
// through, and, when it is not the one asked for, why (see s3.Info).
func (f *FS) Transport() (used transport.Kind, fallback string) {
	return f.info.Used, f.info.Fallback
}

// Facts are what the transport says of its connections to the endpoint
// for a result line (see s3.Info.Facts); nil when it says nothing.
func (f *FS) Facts() map[string]any {
	ep, err := s3.ParseEndpoint(f.endpoint)
	if err != nil {
		return nil
	}
	return f.info.Facts(ep.Host)
}

// Open opens the object at name (s3://bucket/key) for reading after one
// HEAD that establishes its size.
func (f *FS) Open(name string) (icebergio.File, error) {
	loc, err := parseObject(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	st, err := f.client.StatObject(context.Background(), loc.bucket, loc.key, minio.StatObjectOptions{})
	if err != nil {
		return nil, f.pathError("open", loc, err)
	}
	return &File{fs: f, loc: loc, info: fileInfo{name: path.Base(loc.key), size: st.Size, mod: st.LastModified}}, nil
}

// Stat returns the size and modification time of the object at name.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	loc, err := parseObject(name)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	st, err := f.client.StatObject(context.Background(), loc.bucket, loc.key, minio.StatObjectOptions{})
	if err != nil {
		return nil, f.pathError("stat", loc, err)
	}
	return fileInfo{name: path.Base(loc.key), size: st.Size, mod: st.LastModified}, nil
}

// ReadFile reads the whole object at name with one GET.
func (f *FS) ReadFile(name string) ([]byte, error) {
	loc, err := parseObject(name)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	body, st, _, err := f.core.GetObject(context.Background(), loc.bucket, loc.key, minio.GetObjectOptions{})
	if err != nil {
		return nil, f.pathError("read", loc, err)
	}
	defer body.Close()
	var buf []byte
	if st.Size >= 0 {
		buf = make([]byte, st.Size)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, &fs.PathError{Op: "read", Path: loc.String(), Err: fmt.Errorf("S3 endpoint %s: body: %w", f.endpoint, err)}
		}
		return buf, nil
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: loc.String(), Err: fmt.Errorf("S3 endpoint %s: body: %w", f.endpoint, err)}
	}
	return b, nil
}

// Remove deletes the object at name. As in S3, removing a key that does not
// exist succeeds; a missing bucket does not.
func (f *FS) Remove(name string) error {
	loc, err := parseObject(name)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	if err := f.client.RemoveObject(context.Background(), loc.bucket, loc.key, minio.RemoveObjectOptions{}); err != nil {
		return f.pathError("remove", loc, err)
	}
	return nil
}

// Create returns a writer for the object at name; see the package
// documentation for how it streams. The object appears when Close returns
// nil. Create itself does no I/O.
func (f *FS) Create(name string) (icebergio.FileWriter, error) {
	loc, err := parseObject(name)
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	return &writer{fs: f, loc: loc}, nil
}

// WriteFile writes p as the object at name: one PUT up to the part size,
// a multipart upload above it.
func (f *FS) WriteFile(name string, p []byte) error {
	loc, err := parseObject(name)
	if err != nil {
		return &fs.PathError{Op: "write", Path: name, Err: err}
	}
	if len(p) <= f.partSize {
		return f.putObject(loc, p)
	}
	w := &writer{fs: f, loc: loc}
	if _, err := w.Write(p); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// putObject stores p at loc with one PUT. An empty object goes with an
// unsigned payload: over plain HTTP a signed one is sent aws-chunked, and
// versitygw leaves that body's lone final chunk unread when it arrives in a
// segment of its own, so the next request on the keep-alive connection fails
// to parse. An empty payload has nothing to sign anyway.
func (f *FS) putObject(loc location, p []byte) error {
	opts := minio.PutObjectOptions{DisableContentSha256: len(p) == 0}
	_, err := f.core.PutObject(context.Background(), loc.bucket, loc.key, bytes.NewReader(p), int64(len(p)), "", "", opts)
	if err != nil {
		return f.pathError("write", loc, err)
	}
	return nil
}

// fileInfo is an object's fs.FileInfo.
type fileInfo struct {
	name string
	size int64
	mod  time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return i.mod }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }
