package restserver

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// maxPageSize caps pageSize; a larger request gets this many.
const maxPageSize = 10000

// page is the pagination a list request asks for. The zero value (no
// pageSize) means every item in one response, which the spec allows.
type page struct {
	size  int    // 0: no paging
	after string // key of the last item of the previous page
}

// parsePage reads pageToken and pageSize. A token is opaque to clients: the
// base64url of the last key returned. A bad size or token is 400.
func parsePage(q url.Values) (page, error) {
	var p page
	if s := q.Get("pageSize"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return p, fmt.Errorf("%w: pageSize: want a positive integer, got %q", ErrBadRequest, s)
		}
		p.size = min(n, maxPageSize)
	}
	if tok := q.Get("pageToken"); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return p, fmt.Errorf("%w: pageToken: not a token this server issued", ErrBadRequest)
		}
		p.after = string(b)
		if p.size == 0 {
			p.size = maxPageSize
		}
	}
	return p, nil
}

// apply returns the items of this page (keys in ascending order, as the
// catalogs list them) and the next page's token ("" when this is the last).
func applyPage[T any](p page, items []T, key func(T) string) ([]T, string) {
	if p.size == 0 {
		return items, ""
	}
	start := 0
	if p.after != "" {
		for start < len(items) && strings.Compare(key(items[start]), p.after) <= 0 {
			start++
		}
	}
	end := min(start+p.size, len(items))
	out := items[start:end]
	if end < len(items) && len(out) > 0 {
		return out, base64.RawURLEncoding.EncodeToString([]byte(key(out[len(out)-1])))
	}
	return out, ""
}
