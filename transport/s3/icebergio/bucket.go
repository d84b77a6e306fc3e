package icebergio

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// ErrBadWarehouse reports a warehouse URI that is not s3://bucket[/prefix].
var ErrBadWarehouse = errors.New("bad S3 warehouse")

// ParseWarehouse checks that wh is s3://bucket[/prefix] (or s3a://) with a
// valid bucket name and returns the bucket. Nothing is contacted.
func ParseWarehouse(wh string) (bucket string, err error) {
	l, err := parseLocation(wh)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadWarehouse, err)
	}
	if err := s3utils.CheckValidBucketNameStrict(l.bucket); err != nil {
		return "", fmt.Errorf("%w %q: bucket %q: %v", ErrBadWarehouse, wh, l.bucket, err)
	}
	if strings.ContainsAny(l.key, "?#") {
		return "", fmt.Errorf("%w %q: a query or fragment has no meaning in a warehouse", ErrBadWarehouse, wh)
	}
	if _, err := url.Parse(wh); err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrBadWarehouse, wh, err)
	}
	return l.bucket, nil
}

// EnsureBucket makes sure bucket exists on the FS's endpoint: it answers
// whether it had to create it. It is the up-front check of a warehouse — an
// unreachable endpoint, refused keys (ErrAccessDenied) or a refused create
// fail here, naming the endpoint, before anything else is written.
func (f *FS) EnsureBucket(ctx context.Context, bucket string) (created bool, err error) {
	ok, err := f.client.BucketExists(ctx, bucket)
	if err != nil {
		return false, f.bucketError("check bucket", bucket, err)
	}
	if ok {
		return false, nil
	}
	err = f.client.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: f.region})
	if err != nil {
		if code := minio.ToErrorResponse(err).Code; code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
			return false, nil // created meanwhile by someone else
		}
		return false, f.bucketError("create bucket", bucket, err)
	}
	return true, nil
}

func (f *FS) bucketError(op, bucket string, err error) error {
	resp := minio.ToErrorResponse(err)
	if accessDeniedCodes[resp.Code] || resp.StatusCode == 403 {
		return fmt.Errorf("%s %q: %w: %s at %s", op, bucket, ErrAccessDenied, resp.Code, f.endpoint)
	}
	if resp.Code == "" { // no S3 answer at all: connection refused, timeout, DNS
		return fmt.Errorf("%s %q: S3 endpoint %s unreachable: %w", op, bucket, f.endpoint, err)
	}
	return fmt.Errorf("%s %q at S3 endpoint %s: %w", op, bucket, f.endpoint, err)
}
