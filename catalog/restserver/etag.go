package restserver

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// Freshness-aware loads. A table's LoadTable answer is fully determined by
// its metadata location: every commit writes a new metadata file under a
// new name, and a file once written is never changed. So the location is a
// version stamp, and the front answers every successful load with
//
//	ETag: "<32 hex digits of SHA-256(metadata location)>"
//
// (a strong entity tag, RFC 9110 §8.8.3; the location itself is not sent,
// since a location may hold characters an entity tag may not). A GET whose
// If-None-Match lists that tag, or "*", is answered 304 Not Modified with
// the ETag and no body; any other GET gets the full 200 answer. The tag of
// one location is the same on every server over the same catalog, so a
// client may revalidate against any replica. A snapshots=refs answer is
// another body, so its tag is derived from the location and the mode
// (snapshots.go).

// tableETag is the quoted entity tag of the answer identified by key: the
// metadata location of the version, with the mode for a refs answer.
func tableETag(key string) string {
	sum := sha256.Sum256([]byte(key))
	b := make([]byte, 0, 2+32)
	b = append(b, '"')
	b = hex.AppendEncode(b, sum[:16])
	return string(append(b, '"'))
}

// etagListed reports whether the If-None-Match field value header lists
// etag. If-None-Match compares weakly (RFC 9110 §13.1.2): a W/ prefix is
// ignored. "*" matches any current version.
func etagListed(header, etag string) bool {
	for header != "" {
		var tag string
		tag, header, _ = strings.Cut(header, ",")
		tag = strings.TrimSpace(tag)
		tag = strings.TrimPrefix(tag, "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// inmLists reports whether r's If-None-Match lists etag.
func inmLists(r *http.Request, etag string) bool {
	for _, v := range r.Header["If-None-Match"] {
		if etagListed(v, etag) {
			return true
		}
	}
	return false
}
