// Package workspace holds the one rule set for where a katbench run keeps
// what it writes: parsing a --warehouse URI (file:// or s3://), each
// target's own directory under the run's root, and removing a run's
// objects again. Every command that takes a warehouse parses it here, so
// the same URI means the same thing everywhere.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// ErrBadWarehouse reports a warehouse URI that is not file:///abs/path or
// s3://bucket[/prefix]; it is always the user's input.
var ErrBadWarehouse = errors.New("bad warehouse")

// Warehouse is a parsed warehouse URI. The zero value is "no warehouse
// given". A Warehouse is a value: safe to copy and share.
type Warehouse struct {
	// URI is the warehouse as given, trimmed, without a trailing slash.
	URI string
	// S3 is true for s3:// and s3a://; Bucket and Prefix are then set
	// (Prefix without slashes at either end, "" for the bucket's root).
	S3     bool
	Bucket string
	Prefix string
	// Dir is the local directory of a file:// warehouse.
	Dir string
}

// Parse parses raw with the one rule set: file:///absolute/path (host
// empty or localhost, no query or fragment) or s3://bucket[/prefix] (s3a://
// too, a valid S3 bucket name). Empty raw is the zero Warehouse. Errors
// wrap ErrBadWarehouse and name the value.
func Parse(raw string) (Warehouse, error) {
	wh := strings.TrimRight(strings.TrimSpace(raw), "/")
	if wh == "" {
		if raw != "" {
			return Warehouse{}, fmt.Errorf("%w %q: empty", ErrBadWarehouse, raw)
		}
		return Warehouse{}, nil
	}
	scheme, rest, ok := strings.Cut(wh, "://")
	switch {
	case !ok:
		return Warehouse{}, fmt.Errorf("%w %q: want file:///abs/path or s3://bucket/prefix", ErrBadWarehouse, raw)
	case strings.EqualFold(scheme, "file"):
		u, err := url.Parse(wh)
		if err != nil || (u.Host != "" && u.Host != "localhost") || !filepath.IsAbs(u.Path) || u.RawQuery != "" || u.Fragment != "" {
			return Warehouse{}, fmt.Errorf("%w %q: want file:///absolute/path", ErrBadWarehouse, raw)
		}
		return Warehouse{URI: wh, Dir: filepath.Clean(u.Path)}, nil
	case strings.EqualFold(scheme, "s3") || strings.EqualFold(scheme, "s3a"):
	default:
		return Warehouse{}, fmt.Errorf("%w %q: scheme %q, want file or s3", ErrBadWarehouse, raw, scheme)
	}
	bucket, err := s3io.ParseWarehouse(wh)
	if err != nil {
		return Warehouse{}, fmt.Errorf("%w: %w", ErrBadWarehouse, err)
	}
	_, prefix, _ := strings.Cut(rest, "/")
	return Warehouse{URI: wh, S3: true, Bucket: bucket, Prefix: strings.Trim(prefix, "/")}, nil
}

// Shown is the warehouse as result lines may show it: "file", or the
// scheme and bucket of an S3 one (never a path a reader could not use).
func (w Warehouse) Shown() string {
	if w.S3 {
		return "s3://" + w.Bucket
	}
	return "file"
}

// Run is the warehouse of one run: <URI>/<runID>, so a run's objects share
// one prefix that RemoveRun can take away.
func (w Warehouse) Run(runID string) Warehouse {
	out := w
	out.URI = w.URI + "/" + runID
	if w.S3 {
		out.Prefix = strings.TrimPrefix(w.Prefix+"/"+runID, "/")
	} else {
		out.Dir = filepath.Join(w.Dir, runID)
	}
	return out
}

// Sub is the location of one target of a run under w: its own directory,
// so targets of one run never share a table location.
func (w Warehouse) Sub(name string) string { return w.URI + "/" + name }

// removeTimeout bounds the removal of a run's objects, which runs even
// after the run's context was cancelled.
const removeTimeout = 2 * time.Minute

// RemovePrefix deletes every object under prefix in bucket, on a context
// that survives ctx's cancellation (an interrupted run still leaves
// nothing behind), bounded by two minutes. It returns every failure.
func RemovePrefix(ctx context.Context, c *minio.Client, bucket, prefix string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	var errs []error
	for obj := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", prefix, obj.Err))
			break
		}
		if err := c.RemoveObject(ctx, bucket, obj.Key, minio.RemoveObjectOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", obj.Key, err))
		}
	}
	return errors.Join(errs...)
}
