package commitcheck

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/apache/iceberg-go/table"
)

// MarkerProperty is the snapshot summary property that carries a commit
// attempt's marker.
const MarkerProperty = "katbench.marker"

// Outcome is the client's view of how one commit attempt ended.
type Outcome string

// The outcomes of a commit attempt.
const (
	// Acked: the catalog answered success; the commit must be in the
	// history exactly once.
	Acked Outcome = "acknowledged"
	// Refused: the catalog answered that it did not commit (a conflict
	// left after every retry, 409 CommitFailed) or the commit was never
	// sent; the marker must not be in the history.
	Refused Outcome = "refused"
	// Indeterminate: no answer that says either way (a timeout, a 5xx, a
	// lost connection); the marker may or may not be in the history.
	Indeterminate Outcome = "indeterminate"
)

// Attempt is one commit as the client saw it: one marker, from the first
// try to the last retry.
type Attempt struct {
	Marker string
	Table  string // the table's identifier, dot-joined
	Writer int
	Outcome
	// Err is the error text of a refused or indeterminate attempt.
	Err string
	// Latency runs from the first try to the answer, retries included.
	Latency time.Duration
	// Tries is how many times the commit was sent (1 + retries);
	// Conflicts how many of those the catalog answered with
	// ErrCommitFailed; Calls how many catalog calls (loads and commits)
	// the attempt made.
	Tries, Conflicts, Calls int
	// Spent is where the attempt's time went, as seen around the catalog
	// calls.
	Spent Spent
	// Ack is what an acknowledged commit's answer said it made: the
	// snapshot carrying the marker, its parent and the metadata file.
	// Nil when not acknowledged, or when the answer's main head did not
	// carry the marker.
	Ack *Ack
}

// Spent splits one attempt's time by what the client waited on: the
// catalog's LoadTable calls, its CommitTable calls, the client's own work
// between a load's answer and the next commit (the manifest and manifest
// list it writes, its validation), and the backoff between a conflict and
// the next load. The conflict window of a try is its Write and Commit
// time: from the head it read to the moment the catalog compares it.
type Spent struct {
	Load, Write, Commit, Backoff time.Duration
}

// Ack is the snapshot an acknowledged commit's answer reported.
type Ack struct {
	Snapshot, Parent int64 // Parent is -1 for none
	Sequence         int64
	MetadataFile     string
}

// Log is the client-side record of every commit attempt. It is safe for
// concurrent use.
type Log struct {
	mu       sync.Mutex
	attempts []Attempt
}

// Add records one attempt.
func (l *Log) Add(a Attempt) {
	l.mu.Lock()
	l.attempts = append(l.attempts, a)
	l.mu.Unlock()
}

// Attempts returns a copy of every attempt recorded so far.
func (l *Log) Attempts() []Attempt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Attempt(nil), l.attempts...)
}

// Classify says what an error from a commit means for its marker: nil is
// Acked; ErrCommitFailed (or a requirement failure, which iceberg-go's SQL
// catalog returns without it) is Refused; anything else — a timeout, a
// server error, a broken connection, an error whose meaning the client
// cannot know — is Indeterminate.
func Classify(err error) Outcome {
	switch {
	case err == nil:
		return Acked
	case errors.Is(err, table.ErrCommitFailed), strings.HasPrefix(err.Error(), "requirement failed: "):
		return Refused
	default:
		return Indeterminate
	}
}
