package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Recovery describes what Open replayed from the commit log.
type Recovery struct {
	// Segments is the number of log segments found.
	Segments int
	// Records is the number of log records (groups) replayed onto bbolt:
	// those after the last checkpoint.
	Records int
	// Changes is the number of key changes they held.
	Changes int
	// Applied is the seq of the last record bbolt holds after the replay.
	Applied uint64
	// Duration is the time the recovery took: reading and checking the
	// segments, the replay's bbolt commit (synced) and removing the
	// segments.
	Duration time.Duration
}

// Recovery reports what Open replayed from the commit log (zero when
// there was no log). Safe for concurrent use.
func (c *Catalog) Recovery() Recovery { return c.recovery }

// recoverLog replays the commit log in dir onto db, whatever mode the
// catalog opens in: every record after the checkpoint that db holds
// (bucket wal, key applied) is applied in order, in one bbolt transaction
// that also moves the checkpoint to the last of them and is synced; then
// every segment is removed, since db holds all they held.
//
// Each segment's valid prefix ends at its first torn record (cut short or
// failing its CRC32C) or at a seq out of order; nothing after it is ever
// replayed, since a group is acknowledged only after the fdatasync that
// made its whole record durable. A gap between the checkpoint and the
// first record found, or between segments, means records are missing and
// is refused with ErrCorrupt, changing nothing.
func recoverLog(db *bolt.DB, dir string) (Recovery, error) {
	start := time.Now()
	var rc Recovery
	var applied uint64
	if err := db.View(func(tx *bolt.Tx) (err error) {
		applied, err = appliedSeq(tx)
		return err
	}); err != nil {
		return rc, fmt.Errorf("commit log: %w", err)
	}
	rc.Applied = applied
	firsts, err := listSegments(dir)
	if err != nil || len(firsts) == 0 {
		return rc, err
	}
	rc.Segments = len(firsts)
	var groups [][]walChange
	next := applied + 1 // the seq the next replayed record must have
	for i, first := range firsts {
		if i+1 < len(firsts) && firsts[i+1] <= next {
			continue // every record of it is in bbolt already
		}
		seg, recs, err := openWALSegment(filepath.Join(dir, segmentName(first)), first)
		if err != nil {
			return rc, err
		}
		_ = seg.close()
		for _, r := range recs {
			if r.seq < next {
				continue
			}
			if r.seq != next {
				return rc, fmt.Errorf("%w: commit log: record %d follows %d (checkpoint %d): records are missing", ErrCorrupt, r.seq, next-1, applied)
			}
			ch, err := decodeWALChanges(r.payload)
			if err != nil {
				return rc, fmt.Errorf("commit log record %d: %w", r.seq, err)
			}
			groups = append(groups, ch)
			rc.Changes += len(ch)
			next++
		}
		if i+1 < len(firsts) && firsts[i+1] != next {
			return rc, fmt.Errorf("%w: commit log: segment %s ends before record %d, the next starts at %d", ErrCorrupt, segmentName(first), next, firsts[i+1])
		}
	}
	rc.Records = len(groups)
	rc.Applied = next - 1
	if len(groups) > 0 {
		err := db.Update(func(tx *bolt.Tx) error {
			for _, g := range groups {
				for _, ch := range g {
					if err := applyWALChange(tx, ch); err != nil {
						return err
					}
				}
			}
			return putApplied(tx, rc.Applied)
		})
		if err == nil && db.NoSync {
			err = db.Sync() // the segments go next: bbolt must hold their records
		}
		if err != nil {
			return rc, fmt.Errorf("commit log: replay onto %s: %w", db.Path(), err)
		}
	}
	for _, first := range firsts {
		if err := os.Remove(filepath.Join(dir, segmentName(first))); err != nil && !os.IsNotExist(err) {
			return rc, fmt.Errorf("commit log: %w", err)
		}
	}
	rc.Duration = time.Since(start)
	return rc, nil
}
