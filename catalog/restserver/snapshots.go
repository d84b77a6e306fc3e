package restserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/apache/iceberg-go/table"
)

// The spec's snapshot loading modes. LoadTable takes ?snapshots=all (the
// default: every snapshot the metadata holds) or ?snapshots=refs: only the
// snapshots a branch or tag points at. The mode selects the "snapshots"
// field only: everything else in the metadata (schemas, specs, the refs
// themselves, and the snapshot and metadata logs, which the spec keeps
// whole in either mode) is sent as stored, so a refs answer of a long
// history still carries one snapshot-log entry per snapshot. The two answers of one version differ, so
// they carry different ETags (see etag.go): the tag of a refs answer is
// derived from the metadata location and the mode.

// refsMode reads r's snapshots parameter: false for all, true for refs, an
// ErrBadRequest for anything else.
func refsMode(r *http.Request) (bool, error) {
	switch m := r.URL.Query().Get("snapshots"); m {
	case "", "all":
		return false, nil
	case "refs":
		return true, nil
	default:
		return false, fmt.Errorf("%w: snapshots: want all or refs, got %q", ErrBadRequest, m)
	}
}

// etagKey is what the ETag of a load answer is derived from.
func etagKey(loc string, refs bool) string {
	if refs {
		return loc + "#snapshots=refs"
	}
	return loc
}

// answerKey names one load answer: the version at a metadata location, in
// one snapshots mode.
type answerKey struct {
	loc  string
	refs bool
}

// encodedAnswer is a whole LoadTableResult body, encoded once, and the
// ETag it is sent with.
type encodedAnswer struct {
	body []byte
	etag string
}

// encodeAnswer builds the load answer of the version at loc: raw is its
// metadata JSON (nil: meta is encoded), reduced to the referenced
// snapshots for a refs answer, and spliced with the location and the
// vended config into the LoadTableResult body. An empty loc gets no ETag.
func (s *Server) encodeAnswer(loc string, raw []byte, meta table.Metadata, refs bool) (encodedAnswer, error) {
	if raw == nil {
		b, err := json.Marshal(meta)
		if err != nil {
			return encodedAnswer{}, fmt.Errorf("encode metadata: %w", err)
		}
		raw = b
	}
	if refs {
		b, err := referencedOnly(raw)
		if err != nil {
			return encodedAnswer{}, fmt.Errorf("snapshots=refs: %w", err)
		}
		raw = b
	}
	a := encodedAnswer{body: s.appendSpliced(make([]byte, 0, len(raw)+len(loc)+len(s.storageConfigJSON)+48), loc, raw, true)}
	if loc != "" {
		a.etag = tableETag(etagKey(loc, refs))
	}
	return a, nil
}

// serveAnswer sends a: 304 with its ETag when r's If-None-Match lists
// it, else 200 with the body as encoded.
func serveAnswer(w http.ResponseWriter, r *http.Request, a encodedAnswer) {
	if a.etag != "" {
		w.Header()["Etag"] = []string{a.etag}
		if inmLists(r, a.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	writeRaw(w, http.StatusOK, a.body)
}

// answerCacheBytes bounds the encoded answers a server keeps.
const answerCacheBytes = 64 << 20

// answerCache keeps the encoded load answers of recently loaded versions by
// metadata location and mode. A location names one immutable version, so
// an entry never goes stale: a commit writes a new location, which misses
// and is encoded once, and a table with a long history costs one encoding
// per version and mode, not one per load. When the bytes held would pass
// answerCacheBytes, the oldest entries go first. The zero value is empty
// and ready; safe for concurrent use.
type answerCache struct {
	mu    sync.RWMutex
	m     map[answerKey]encodedAnswer
	order []answerKey // insertion order, oldest first
	bytes int
}

func (c *answerCache) get(k answerKey) (encodedAnswer, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	a, ok := c.m[k]
	return a, ok
}

func (c *answerCache) put(k answerKey, a encodedAnswer) {
	if k.loc == "" || len(a.body) > answerCacheBytes/4 {
		return // no version to key it by; or one answer would push out everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[answerKey]encodedAnswer{}
	}
	if _, ok := c.m[k]; ok {
		return
	}
	for c.bytes+len(a.body) > answerCacheBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old].body)
		delete(c.m, old)
	}
	c.m[k] = a
	c.order = append(c.order, k)
	c.bytes += len(a.body)
}

// referencedOnly returns the metadata JSON raw with its snapshots reduced
// to those a ref (or, for a table without refs, current-snapshot-id)
// points at. Other fields are kept byte for byte; only the top-level
// object is re-encoded (its keys then in sorted order).
func referencedOnly(raw []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	snaps, ok := m["snapshots"]
	if !ok {
		return raw, nil
	}
	keep := map[int64]bool{}
	if r, ok := m["refs"]; ok {
		var refs map[string]struct {
			SnapshotID int64 `json:"snapshot-id"`
		}
		if err := json.Unmarshal(r, &refs); err != nil {
			return nil, fmt.Errorf("decode refs: %w", err)
		}
		for _, ref := range refs {
			keep[ref.SnapshotID] = true
		}
	}
	if cur, ok := m["current-snapshot-id"]; ok {
		var id *int64
		if err := json.Unmarshal(cur, &id); err != nil {
			return nil, fmt.Errorf("decode current-snapshot-id: %w", err)
		}
		if id != nil && *id >= 0 {
			keep[*id] = true
		}
	}
	var all []json.RawMessage
	if err := json.Unmarshal(snaps, &all); err != nil {
		return nil, fmt.Errorf("decode snapshots: %w", err)
	}
	kept := make([]json.RawMessage, 0, len(keep))
	for _, sn := range all {
		var id struct {
			SnapshotID int64 `json:"snapshot-id"`
		}
		if err := json.Unmarshal(sn, &id); err != nil {
			return nil, fmt.Errorf("decode snapshot: %w", err)
		}
		if keep[id.SnapshotID] {
			kept = append(kept, sn)
		}
	}
	if len(kept) == len(all) {
		return raw, nil
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	m["snapshots"] = b
	return json.Marshal(m)
}
