package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// walDirName is the commit log's directory inside Options.Dir.
const walDirName = "wal"

// walSegmentSize is the size a new segment is written to with zeros, and
// past which the log starts a new segment.
var walSegmentSize int64 = 8 << 20

// commitLog is the write-ahead commit log: a directory of segments named
// by the seq of their first record (%016x.wal), of which only the newest
// is appended to. Each group of writes is one record (walrecord.go) whose
// payload is the group's key changes (walchange.go).
//
// A new segment is written to walSegmentSize with zeros and made durable,
// with its directory entry, before its first append, so that an append
// never grows the file and its fdatasync flushes data alone (the cheapest
// flush there is, the one the file-system floor takes). The log starts a
// new segment when an append would run past the end of the current one.
// Segments whose records a checkpoint covers are removed (dropThrough):
// the log holds at most the records since the last checkpoint plus one
// segment.
//
// A commitLog is used by one appender at a time (the group commit's
// leader); dropThrough may run concurrently with it (the checkpointer).
type commitLog struct {
	dir string
	seg *walSegment
	// segs is the first seq of every segment on disk, oldest first; the
	// last is seg's. mu guards it: the checkpointer drops segments while
	// the leader appends.
	mu   sync.Mutex
	segs []uint64
	// failed, once set, fails every later append: after a failed append
	// or sync the log's durable end is unknown until it is reopened.
	failed error
	// beforeSync, set only by tests, runs between a record's append and
	// its fdatasync; an error fails the append as a failed flush would.
	beforeSync func() error

	// Statistics, read concurrently.
	started atomic.Uint64 // segments started
	appends atomic.Uint64 // records appended and synced
	syncs   atomic.Uint64 // fdatasyncs of the log (the prealloc's too)
	bytes   atomic.Uint64 // bytes of records appended
}

// segmentName is the file name of the segment whose first record is seq.
func segmentName(first uint64) string { return fmt.Sprintf("%016x.wal", first) }

// listSegments returns the first seqs of the segments in dir, oldest
// first. A missing dir has none.
func listSegments(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("commit log: %w", err)
	}
	var firsts []uint64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".wal")
		if !ok || e.IsDir() {
			continue
		}
		first, err := strconv.ParseUint(name, 16, 64)
		if err != nil || len(name) != 16 {
			return nil, fmt.Errorf("%w: commit log: unexpected file %s in %s", ErrCorrupt, e.Name(), dir)
		}
		firsts = append(firsts, first)
	}
	slices.Sort(firsts)
	return firsts, nil
}

// createCommitLog starts a log in dir (which holds no segments: recovery
// removed them) whose first record will be seq next.
func createCommitLog(dir string, next uint64) (*commitLog, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("commit log: %w", err)
	}
	l := &commitLog{dir: dir}
	if err := l.startSegment(next); err != nil {
		return nil, err
	}
	return l, nil
}

// startSegment writes a new segment for records from seq first with zeros,
// makes it and its directory entry durable, and makes it the one appended
// to; the previous segment (complete and synced) is closed.
func (l *commitLog) startSegment(first uint64) error {
	path := filepath.Join(l.dir, segmentName(first))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("commit log: %w", err)
	}
	_, err = f.WriteAt(make([]byte, walSegmentSize), 0)
	if err == nil {
		err = fdatasync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsyncPath(l.dir)
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("commit log: start segment %s: %w", path, err)
	}
	l.syncs.Add(2)
	l.started.Add(1)
	seg, _, err := openWALSegment(path, first)
	if err != nil {
		return err
	}
	if l.seg != nil {
		_ = l.seg.close()
	}
	l.seg = seg
	l.mu.Lock()
	l.segs = append(l.segs, first)
	l.mu.Unlock()
	return nil
}

// appendSync appends payload as the next record and makes it durable; it
// returns the record's seq. Only after it returned nil may the group be
// acknowledged. After an error the log refuses every later append.
func (l *commitLog) appendSync(payload []byte) (uint64, error) {
	if l.failed != nil {
		return 0, l.failed
	}
	if l.seg.size+walHeaderSize+int64(len(payload)) > walSegmentSize && l.seg.size > 0 {
		if err := l.startSegment(l.seg.nextSeq); err != nil {
			l.failed = err
			return 0, err
		}
	}
	seq, err := l.seg.append(payload)
	if err == nil && l.beforeSync != nil {
		err = l.beforeSync()
	}
	if err == nil {
		err = l.seg.sync()
	}
	if err != nil {
		l.failed = fmt.Errorf("commit log failed, reopen the catalog to recover: %w", err)
		return 0, err
	}
	l.appends.Add(1)
	l.syncs.Add(1)
	l.bytes.Add(uint64(walHeaderSize + len(payload)))
	return seq, nil
}

// dropThrough removes the segments whose every record is seq or older (a
// checkpoint holds them), never the one appended to. A segment that cannot
// be removed stays and is skipped by the next recovery.
func (l *commitLog) dropThrough(seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.segs) > 1 && l.segs[1] <= seq+1 {
		_ = os.Remove(filepath.Join(l.dir, segmentName(l.segs[0])))
		l.segs = l.segs[1:]
	}
}

// removeAll closes the log and removes every segment (a checkpoint holds
// all their records).
func (l *commitLog) removeAll() error {
	err := l.seg.close()
	for _, first := range l.segs {
		if rerr := os.Remove(filepath.Join(l.dir, segmentName(first))); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	l.segs = nil
	return err
}

// close closes the log's file, keeping its segments.
func (l *commitLog) close() error { return l.seg.close() }
