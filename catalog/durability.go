package catalog

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Durability says when the catalog makes its writes survive an operating
// system crash. The package documentation states exactly what each mode can
// lose.
type Durability string

const (
	// Immediate makes every metadata file (and the directories created for
	// it) durable, then fsyncs the bbolt commit that points to it (with
	// Options.CommitLog: appends the pointer change to the commit log and
	// fdatasyncs it), before the call returns; concurrent writes share one
	// sync of their files and one bbolt commit (one log record). The
	// default.
	Immediate Durability = "immediate"
	// Eventual fsyncs nothing per call; a background goroutine syncs every
	// Options.SyncInterval and on Close.
	Eventual Durability = "eventual"
	// None never fsyncs.
	None Durability = "none"
)

// Durabilities lists the valid modes, strongest first.
var Durabilities = []Durability{Immediate, Eventual, None}

// DefaultSyncInterval is the Eventual mode's sync period when
// Options.SyncInterval is zero.
const DefaultSyncInterval = time.Second

// ParseDurability parses a mode name, ignoring case and surrounding space.
// The empty string means Immediate. An unknown name returns an error wrapping
// ErrInvalidDurability that lists the valid names.
func ParseDurability(s string) (Durability, error) {
	switch d := Durability(strings.ToLower(strings.TrimSpace(s))); d {
	case "":
		return Immediate, nil
	case Immediate, Eventual, None:
		return d, nil
	}
	return "", fmt.Errorf("%w %q: want one of immediate, eventual, none", ErrInvalidDurability, s)
}

// String returns the mode's name.
func (d Durability) String() string { return string(d) }

// syncer is the Eventual mode's background flusher. It remembers the local
// metadata files and directories written since the last round and, every
// interval, fsyncs them and then the bbolt file, so that a pointer reaches
// the disk no earlier than the file it names (as far as this process
// decides; the kernel may still write pages back earlier on its own).
//
// A syncer is safe for concurrent use: note may be called from any goroutine.
type syncer struct {
	db       *bolt.DB
	interval time.Duration

	mu      sync.Mutex
	pending []string // local paths of files and directories to fsync

	stop chan struct{}
	done chan struct{}
	errs chan error // the last sync error, reported by close
}

func newSyncer(db *bolt.DB, interval time.Duration) *syncer {
	if interval <= 0 {
		interval = DefaultSyncInterval
	}
	s := &syncer{
		db:       db,
		interval: interval,
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		errs:     make(chan error, 1),
	}
	go s.loop()
	return s
}

// note records local paths that must be fsynced before the next bbolt sync.
func (s *syncer) note(paths ...string) {
	s.mu.Lock()
	s.pending = append(s.pending, paths...)
	s.mu.Unlock()
}

func (s *syncer) loop() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.syncOnce(); err != nil {
				s.report(err)
			}
		}
	}
}

// report keeps the latest error for close; older unreported ones are dropped.
func (s *syncer) report(err error) {
	select {
	case <-s.errs:
	default:
	}
	s.errs <- err
}

// syncOnce fsyncs the pending files, then the bbolt file.
func (s *syncer) syncOnce() error {
	s.mu.Lock()
	paths := s.pending
	s.pending = nil
	s.mu.Unlock()

	var errs []error
	seen := make(map[string]struct{}, len(paths))
	for _, p := range paths {
		if _, ok := seen[p]; ok {
			continue
		}
		seen[p] = struct{}{}
		if err := fsyncPath(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := s.db.Sync(); err != nil {
		errs = append(errs, fmt.Errorf("sync %s: %w", s.db.Path(), err))
	}
	return errors.Join(errs...)
}

// close stops the loop and runs a final sync. It returns the final sync's
// error, or else the last background error.
func (s *syncer) close() error {
	close(s.stop)
	<-s.done
	if err := s.syncOnce(); err != nil {
		return err
	}
	select {
	case err := <-s.errs:
		return fmt.Errorf("background sync: %w", err)
	default:
		return nil
	}
}

// fsyncPath opens a file or directory read-only and fsyncs it.
func fsyncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync %s: %w", p, err)
	}
	return nil
}
