package catalog

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// The bbolt file's pages past its high-water mark are written with zeros
// ahead of use (Immediate mode). bbolt grows its file with ftruncate, so a
// page it writes past the old end lands in a hole: the file system must
// allocate a block for it, and the fdatasync of bbolt's commit then
// commits that allocation through the journal, a second journal commit
// per batch on top of the one the batch's metadata files took. Into
// blocks already written, the same page write is an overwrite, and the
// fdatasync flushes data only. Pages past the high-water mark are free
// space bbolt never reads: writing zeros there changes nothing it keeps.
const (
	// prefillChunk is how far past the high-water mark the file is
	// written ahead.
	prefillChunk = 1 << 20
	// prefillLow is how close the high-water mark may come to the end of
	// the written ahead region before the next chunk is written.
	prefillLow = 256 << 10
)

// prefiller writes zeros past a bbolt file's high-water mark. It is used
// by one writer at a time, under the catalog's writer lock, between
// bbolt's write transactions.
type prefiller struct {
	f   *os.File // nil: off (not Immediate mode, or after an error)
	end int64    // the file is written, with data or zeros, up to here
}

// newPrefiller opens path for writing ahead and writes the first chunk.
// A file it cannot open or write is left as bbolt grows it: writing ahead
// only saves work, it makes nothing durable.
func newPrefiller(path string, db *bolt.DB) *prefiller {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return &prefiller{}
	}
	p := &prefiller{f: f}
	p.after(db)
	return p
}

// after writes the next chunk of zeros when bbolt's high-water mark came
// within prefillLow of the written region's end, and fdatasyncs them.
// Call it with no write transaction open.
func (p *prefiller) after(db *bolt.DB) {
	if p.f == nil {
		return
	}
	tx, err := db.Begin(false)
	if err != nil {
		return
	}
	hwm := tx.Size()
	_ = tx.Rollback()
	if p.end-hwm >= prefillLow {
		return
	}
	from := max(p.end, hwm)
	to := hwm + prefillChunk
	if err := p.zero(from, to); err != nil {
		p.stop()
		return
	}
	p.end = to
}

// zero writes zeros to [from, to) and fdatasyncs them.
func (p *prefiller) zero(from, to int64) error {
	buf := make([]byte, min(to-from, 256<<10))
	for off := from; off < to; off += int64(len(buf)) {
		n := min(int64(len(buf)), to-off)
		if _, err := p.f.WriteAt(buf[:n], off); err != nil {
			return fmt.Errorf("write ahead: %w", err)
		}
	}
	return fdatasync(p.f)
}

// stop closes the file: no more writing ahead.
func (p *prefiller) stop() {
	if p.f != nil {
		_ = p.f.Close()
		p.f = nil
	}
}
