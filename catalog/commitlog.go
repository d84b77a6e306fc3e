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
// The zeros of the next segment are written and synced in the background
// while the current one fills (a spare file, as etcd's WAL prepares its
// next file), so that starting a segment on the commit path is a rename
// and a directory fsync, not the write and flush of a whole segment.
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

	// spare is the result of the spare segment's preparation in flight
	// (see prepareSpare); nil when none is. Only the appender uses it.
	spare chan error

	// Statistics, read concurrently.
	started  atomic.Uint64 // segments started
	prepared atomic.Uint64 // of them, prepared off the commit path
	appends  atomic.Uint64 // records appended and synced
	syncs    atomic.Uint64 // fdatasyncs of the log (the prealloc's too)
	bytes    atomic.Uint64 // bytes of records appended
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
	_ = os.Remove(filepath.Join(dir, spareName)) // a crash's leftover
	if err := l.startSegment(next); err != nil {
		return nil, err
	}
	return l, nil
}

// spareName is the file in the log's directory where the next segment is
// prepared off the commit path. It is not a segment: recovery never reads
// it (its name does not end in .wal), and opening a log removes one left
// by a crash.
const spareName = "next.wal.tmp"

// zeroChunk is what segments are written with, one chunk per write.
var zeroChunk [1 << 20]byte

// writeZeros creates path (or truncates it, when excl is false) as a file
// of walSegmentSize zero bytes and fdatasyncs it, so that its blocks and
// size are durable before any record goes into it.
func writeZeros(path string, excl bool) error {
	flag := os.O_RDWR | os.O_CREATE | os.O_TRUNC
	if excl {
		flag = os.O_RDWR | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	for off := int64(0); off < walSegmentSize && err == nil; off += int64(len(zeroChunk)) {
		_, err = f.WriteAt(zeroChunk[:min(int64(len(zeroChunk)), walSegmentSize-off)], off)
	}
	if err == nil {
		err = fdatasync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// prepareSpare starts writing the next segment's zeros into the spare file
// in the background (see takeSpare). At most one preparation is in flight.
func (l *commitLog) prepareSpare() {
	done := make(chan error, 1)
	l.spare = done
	path := filepath.Join(l.dir, spareName)
	go func() {
		err := writeZeros(path, false)
		if err == nil {
			l.syncs.Add(1)
		}
		done <- err
	}()
}

// waitSpare waits for the preparation in flight and returns its error;
// ok is false when none was in flight.
func (l *commitLog) waitSpare() (ok bool, err error) {
	if l.spare == nil {
		return false, nil
	}
	err = <-l.spare
	l.spare = nil
	return true, err
}

// takeSpare waits for the preparation in flight, if any, and renames the
// spare file to path, never over an existing file. It reports whether
// path now names a durable zeroed file of the segment's size (its
// directory entry is not synced yet); when not, the caller writes the
// segment itself.
func (l *commitLog) takeSpare(path string) bool {
	ok, err := l.waitSpare()
	if !ok {
		return false
	}
	spare := filepath.Join(l.dir, spareName)
	if err == nil {
		err = renameNoReplace(spare, path)
	}
	if err != nil {
		_ = os.Remove(spare)
		return false
	}
	l.prepared.Add(1)
	return true
}

// dropSpare waits for the preparation in flight and removes the spare
// file.
func (l *commitLog) dropSpare() {
	_, _ = l.waitSpare()
	_ = os.Remove(filepath.Join(l.dir, spareName))
}

// startSegment makes a new segment for records from seq first, written
// with zeros and durable with its directory entry, the one appended to;
// the previous segment (complete and synced) is closed. The segment is
// the spare prepared in the background since the last start when there
// is one (a rename, then the directory's fsync, on the commit path); else
// it is written here. Either way the next spare is started.
func (l *commitLog) startSegment(first uint64) error {
	path := filepath.Join(l.dir, segmentName(first))
	var err error
	if !l.takeSpare(path) {
		err = writeZeros(path, true)
		if err == nil {
			l.syncs.Add(1)
		}
	}
	if err == nil {
		err = fsyncPath(l.dir)
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("commit log: start segment %s: %w", path, err)
	}
	l.syncs.Add(1)
	l.started.Add(1)
	seg, err := openFreshWALSegment(path, first)
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
	l.prepareSpare()
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
	l.dropSpare()
	err := l.seg.close()
	for _, first := range l.segs {
		if rerr := os.Remove(filepath.Join(l.dir, segmentName(first))); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	l.segs = nil
	return err
}

// close closes the log's file, keeping its segments; the spare is
// removed.
func (l *commitLog) close() error {
	l.dropSpare()
	return l.seg.close()
}
