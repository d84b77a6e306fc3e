package icebergio

import (
	"fmt"
	"strings"
)

// Schemes are the URI schemes the package registers.
var Schemes = []string{"s3", "s3a"}

// location is a parsed scheme://bucket/key.
type location struct {
	scheme, bucket, key string
}

// parseLocation splits scheme://bucket/key without URL-decoding the key:
// Iceberg locations are written and read back verbatim, so a '%' or '?' in a
// key is part of the key.
func parseLocation(s string) (location, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return location{}, fmt.Errorf("%w %q: want s3://bucket/key", ErrBadLocation, s)
	}
	known := false
	for _, sc := range Schemes {
		if strings.EqualFold(scheme, sc) {
			known = true
		}
	}
	if !known {
		return location{}, fmt.Errorf("%w %q: scheme %q is not one of %v", ErrBadLocation, s, scheme, Schemes)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return location{}, fmt.Errorf("%w %q: no bucket", ErrBadLocation, s)
	}
	return location{scheme: strings.ToLower(scheme), bucket: bucket, key: key}, nil
}

// parseObject is parseLocation for a location that must name an object.
func parseObject(s string) (location, error) {
	l, err := parseLocation(s)
	if err == nil && (l.key == "" || strings.HasSuffix(l.key, "/")) {
		err = fmt.Errorf("%w %q: no object key", ErrBadLocation, s)
	}
	return l, err
}

func (l location) String() string { return l.scheme + "://" + l.bucket + "/" + l.key }
