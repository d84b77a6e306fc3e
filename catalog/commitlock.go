package catalog

import "context"

// commitLockStripes is the number of commit lock stripes: enough that
// writers on distinct tables rarely share one.
const commitLockStripes = 1024

// commitLocks serialise CommitTable per table, from reading the base
// metadata to the pointer commit. Commits to one table would conflict on the
// pointer anyway; taking them in turn means a commit always starts from the
// current metadata, so a loser fails its requirements before it writes and
// fsyncs a metadata file, and a commit whose requirements still hold on the
// newer metadata succeeds instead of failing on a moved pointer. Commits to
// different tables take different stripes (mostly) and still share group
// commits.
//
// commitLocks is safe for concurrent use once made by newCommitLocks.
type commitLocks struct {
	s [commitLockStripes]chan struct{}
}

func newCommitLocks() *commitLocks {
	l := &commitLocks{}
	for i := range l.s {
		l.s[i] = make(chan struct{}, 1)
	}
	return l
}

// lock takes key's stripe, or returns ctx's error if ctx ends first. The
// returned function releases it.
func (l *commitLocks) lock(ctx context.Context, key []byte) (func(), error) {
	s := l.s[fnv32a(key)%commitLockStripes]
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
