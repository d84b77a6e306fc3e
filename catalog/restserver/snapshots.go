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
// snapshots a branch or tag points at, so a table with a long history is
// answered with a body the size of its live state. Everything else in the
// metadata (schemas, specs, the snapshot and metadata logs, the refs
// themselves) is sent as stored. The two answers of one version differ, so
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

// loadAnswer handles the conditional and mode parts of a fast-path load
// of the version at loc whose stored JSON is raw: a bad mode is answered
// 400, a matching If-None-Match 304; otherwise it returns the metadata
// JSON to send (raw, or raw reduced to referenced snapshots) and true.
func (s *Server) loadAnswer(w http.ResponseWriter, r *http.Request, ident table.Identifier, loc string, raw []byte) ([]byte, bool) {
	refs, err := refsMode(r)
	if err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	if notModified(w, r, etagKey(loc, refs)) {
		return nil, false
	}
	if !refs {
		return raw, true
	}
	if out, ok := s.refs.get(loc); ok {
		return out, true
	}
	out, err := referencedOnly(raw)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("load table %v: snapshots=refs: %w", ident, err))
		return nil, false
	}
	s.refs.put(loc, out)
	return out, true
}

// refsCacheBytes bounds the reduced answers a server keeps.
const refsCacheBytes = 64 << 20

// refsCache keeps the snapshots=refs answers of recently loaded versions
// by metadata location, which names one immutable version: an entry never
// goes stale, so a table with a long history is reduced once per version,
// not once per load. When the bytes held would pass refsCacheBytes, the
// oldest entries go first. The zero value is empty and ready; safe for
// concurrent use.
type refsCache struct {
	mu    sync.Mutex
	m     map[string][]byte
	order []string // insertion order, oldest first
	bytes int
}

func (c *refsCache) get(loc string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[loc]
	return b, ok
}

func (c *refsCache) put(loc string, b []byte) {
	if len(b) > refsCacheBytes/4 {
		return // one answer must not push out everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	if _, ok := c.m[loc]; ok {
		return
	}
	for c.bytes+len(b) > refsCacheBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old])
		delete(c.m, old)
	}
	c.m[loc] = b
	c.order = append(c.order, loc)
	c.bytes += len(b)
}

// answerLoaded handles the generic path's load of tbl the same way: it
// reports true when it answered (400, 304, or a refs answer), false when
// the caller is to send the full answer.
func (s *Server) answerLoaded(w http.ResponseWriter, r *http.Request, tbl *table.Table) bool {
	refs, err := refsMode(r)
	if err != nil {
		s.writeError(w, r, err)
		return true
	}
	if !refs {
		return notModified(w, r, tbl.MetadataLocation())
	}
	raw, err := json.Marshal(tbl.Metadata())
	if err == nil {
		var ok bool
		if raw, ok = s.loadAnswer(w, r, tbl.Identifier(), tbl.MetadataLocation(), raw); ok {
			s.writeSpliced(w, tbl.MetadataLocation(), raw, true)
		}
		return true
	}
	s.writeError(w, r, fmt.Errorf("load table %v: encode metadata: %w", tbl.Identifier(), err))
	return true
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
