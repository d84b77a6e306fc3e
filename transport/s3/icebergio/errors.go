package icebergio

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/minio/minio-go/v7"
)

var (
	// ErrAccessDenied reports that the store refused the request's keys or
	// signature (wrong access key, wrong secret, or no permission). It
	// wraps fs.ErrPermission.
	ErrAccessDenied = fmt.Errorf("S3 refused the credentials (wrong access key or secret, or no permission): %w", fs.ErrPermission)
	// ErrNoSuchBucket reports a bucket that does not exist. It wraps
	// fs.ErrNotExist.
	ErrNoSuchBucket = fmt.Errorf("S3 bucket does not exist: %w", fs.ErrNotExist)
	// ErrNoEndpoint reports properties and environment naming no endpoint.
	ErrNoEndpoint = errors.New("no S3 endpoint: set the s3.endpoint property, --s3-endpoint or KATBENCH_S3_ENDPOINT")
	// ErrNoCredentials reports properties and environment without keys.
	ErrNoCredentials = errors.New("no S3 credentials: set s3.access-key-id and s3.secret-access-key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	// ErrBadLocation reports a location that is not scheme://bucket/key
	// with a scheme this package serves.
	ErrBadLocation = errors.New("bad S3 location")
	// ErrBadProperty reports a property value this package cannot use.
	ErrBadProperty = errors.New("bad S3 IO property")
)

// accessDeniedCodes are the S3 error codes meaning "these keys may not".
var accessDeniedCodes = map[string]bool{
	"AccessDenied":          true,
	"InvalidAccessKeyId":    true,
	"SignatureDoesNotMatch": true,
	"InvalidSecurity":       true,
	"InvalidToken":          true,
	"ExpiredToken":          true,
}

// pathError turns a minio-go error on loc into an *fs.PathError whose Err
// matches fs.ErrNotExist for a missing key or bucket and ErrAccessDenied for
// refused keys, and names the endpoint in every other case.
func (f *FS) pathError(op string, loc location, err error) error {
	resp := minio.ToErrorResponse(err)
	var e error
	switch {
	case resp.Code == "NoSuchKey" || resp.Code == "NotFound" && resp.StatusCode == http.StatusNotFound:
		e = fs.ErrNotExist
	case resp.Code == "NoSuchBucket":
		e = fmt.Errorf("%w: %q at %s", ErrNoSuchBucket, loc.bucket, f.endpoint)
	case accessDeniedCodes[resp.Code] || resp.StatusCode == http.StatusForbidden:
		e = fmt.Errorf("%w: %s at %s: %w", ErrAccessDenied, resp.Code, f.endpoint, err)
	default:
		e = fmt.Errorf("S3 endpoint %s: %w", f.endpoint, err)
	}
	return &fs.PathError{Op: op, Path: loc.String(), Err: e}
}
