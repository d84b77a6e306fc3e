package catalog

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// A walChange is one key change a committed write made to bbolt: what the
// commit log records for it and what recovery replays. Changes are
// physical (this key of this bucket now holds this value, or nothing), so
// replaying a group twice, or onto a bbolt file that already holds it,
// leaves the same state.
type walChange struct {
	bucket []byte
	key    []byte
	val    []byte // nil: the key was deleted
	// old is the key's value before the change (nil: absent), kept in
	// memory only, to take the change back out of the open transaction.
	old []byte
}

// Change kinds in a record's payload.
const (
	walPut    = 1
	walDelete = 2
)

// appendWALChanges encodes changes as one record payload:
//
//	uvarint count, then per change:
//	  [1] kind (walPut, walDelete)
//	  uvarint len + bucket, uvarint len + key, (walPut only) uvarint len + value
func appendWALChanges(dst []byte, changes []walChange) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(changes)))
	for _, ch := range changes {
		kind := byte(walPut)
		if ch.val == nil {
			kind = walDelete
		}
		dst = append(dst, kind)
		dst = binary.AppendUvarint(dst, uint64(len(ch.bucket)))
		dst = append(dst, ch.bucket...)
		dst = binary.AppendUvarint(dst, uint64(len(ch.key)))
		dst = append(dst, ch.key...)
		if kind == walPut {
			dst = binary.AppendUvarint(dst, uint64(len(ch.val)))
			dst = append(dst, ch.val...)
		}
	}
	return dst
}

// decodeWALChanges decodes a payload written by appendWALChanges. The
// changes alias p. A payload that does not decode wraps ErrCorrupt: its
// record passed its checksum, so the bytes are what was written and a
// decoding failure is a bug or a foreign file, never a torn tail.
func decodeWALChanges(p []byte) ([]walChange, error) {
	bad := func(what string) error {
		return fmt.Errorf("%w: commit log record: %s", ErrCorrupt, what)
	}
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)) {
		return nil, bad("change count")
	}
	p = p[k:]
	field := func() ([]byte, bool) {
		l, k := binary.Uvarint(p)
		if k <= 0 || l > uint64(len(p)-k) {
			return nil, false
		}
		b := p[k : k+int(l) : k+int(l)]
		p = p[k+int(l):]
		return b, true
	}
	out := make([]walChange, 0, n)
	for range n {
		if len(p) == 0 {
			return nil, bad("truncated change")
		}
		kind := p[0]
		p = p[1:]
		var ch walChange
		var ok bool
		if ch.bucket, ok = field(); !ok {
			return nil, bad("bucket")
		}
		if ch.key, ok = field(); !ok || len(ch.key) == 0 {
			return nil, bad("key")
		}
		switch kind {
		case walPut:
			if ch.val, ok = field(); !ok {
				return nil, bad("value")
			}
			if ch.val == nil {
				ch.val = []byte{}
			}
		case walDelete:
		default:
			return nil, bad(fmt.Sprintf("change kind %d", kind))
		}
		out = append(out, ch)
	}
	if len(p) != 0 {
		return nil, bad("trailing bytes")
	}
	return out, nil
}

// applyWALChange makes ch in tx, creating its bucket when it is missing
// (the views bucket is created on first use).
func applyWALChange(tx *bolt.Tx, ch walChange) error {
	b, err := tx.CreateBucketIfNotExists(ch.bucket)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", ch.bucket, err)
	}
	if ch.val == nil {
		return b.Delete(ch.key)
	}
	return b.Put(ch.key, ch.val)
}

// undoWALChange takes ch back out of tx: the key gets its old value.
func undoWALChange(tx *bolt.Tx, ch walChange) error {
	b := tx.Bucket(ch.bucket)
	if b == nil {
		return nil
	}
	if ch.old == nil {
		return b.Delete(ch.key)
	}
	return b.Put(ch.key, ch.old)
}
