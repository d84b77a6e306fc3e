package catalog

import (
	"fmt"
	"os"
)

// A walSegment is one file of the write-ahead commit log: frames appended
// after the last one (walrecord.go), made durable by sync. The file may be
// longer than its frames: the commit log writes a new segment's bytes as
// zeros ahead of use (see commitLog), so that an append overwrites blocks
// the file system already holds and its fdatasync flushes data only.
// Opening a segment recovers it: its valid prefix is decoded and every
// byte after it that is not zero (a torn tail from a crash or power loss)
// is overwritten with zeros, durably, before the first append, so a frame
// written later never follows garbage and a stale frame can never be
// read as the next one.
//
// Contract: a frame appended before a sync that returned nil survives a
// crash or power loss; a frame appended after the last successful sync may
// or may not, and if it survives only in part it is refused by checksum on
// the next open. A writer acknowledges a group only after the sync that
// follows its append returned nil.
//
// A walSegment is not safe for concurrent use: one committer (the group
// commit's leader) appends and syncs at a time.
type walSegment struct {
	f       *os.File
	size    int64  // bytes of whole frames in the file
	synced  int64  // size at the last successful sync
	nextSeq uint64 // seq of the next frame appended
	buf     []byte // reused encode buffer
}

// openWALSegment opens or creates the segment at path, whose first frame
// (if it has none yet) gets seq first. It returns the segment's durable
// records in order; their payloads are the caller's.
func openWALSegment(path string, first uint64) (*walSegment, []walRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, fmt.Errorf("catalog: write-ahead log: read %s: %w", path, err)
	}
	recs, valid := decodeWALRecords(data)
	if len(recs) > 0 && recs[0].seq != first {
		return nil, nil, fmt.Errorf("catalog: write-ahead log: %s starts at seq %d, want %d", path, recs[0].seq, first)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: write-ahead log: open %s: %w", path, err)
	}
	if tail := data[valid:]; !allZero(tail) {
		// Clear the torn tail, durably, before anything is appended after it.
		if _, err := f.WriteAt(make([]byte, len(tail)), int64(valid)); err == nil {
			err = f.Sync()
		}
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("catalog: write-ahead log: clear torn tail of %s: %w", path, err)
		}
	}
	s := &walSegment{f: f, size: int64(valid), synced: int64(valid), nextSeq: first + uint64(len(recs))}
	return s, recs, nil
}

// openFreshWALSegment opens the segment at path, which the commit log
// has just written with zeros and synced (writeZeros), as an empty one
// whose first frame gets seq first. Unlike openWALSegment it reads
// nothing: the file is known to hold no frame and no torn tail.
func openFreshWALSegment(path string, first uint64) (*walSegment, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("catalog: write-ahead log: open %s: %w", path, err)
	}
	return &walSegment{f: f, nextSeq: first}, nil
}

// append writes one frame per payload at the segment's end, in one write,
// and returns the seq of the first. The frames are durable only after the
// next sync. On error the segment's end is unknown: the caller must stop
// using it (and reopen it, which clears what was half written).
func (s *walSegment) append(payloads ...[]byte) (first uint64, err error) {
	s.buf = s.buf[:0]
	first = s.nextSeq
	for i, p := range payloads {
		if s.buf, err = appendWALRecord(s.buf, walRecord{seq: first + uint64(i), payload: p}); err != nil {
			return 0, err
		}
	}
	if _, err := s.f.WriteAt(s.buf, s.size); err != nil {
		return 0, fmt.Errorf("catalog: write-ahead log: append: %w", err)
	}
	s.size += int64(len(s.buf))
	s.nextSeq += uint64(len(payloads))
	return first, nil
}

// sync makes every appended frame durable: an fdatasync, which within the
// file's written length flushes the data alone.
func (s *walSegment) sync() error {
	if err := fdatasync(s.f); err != nil {
		return fmt.Errorf("catalog: write-ahead log: sync: %w", err)
	}
	s.synced = s.size
	return nil
}

// close closes the segment's file without syncing it.
func (s *walSegment) close() error { return s.f.Close() }

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
