package commitcheck

import (
	"context"
	"errors"
	"time"

	"github.com/apache/iceberg-go/table"
)

// calls counts the catalog calls of one commit attempt. One writer owns
// it; it is not safe for concurrent use.
type calls struct {
	loads, commits, conflicts int
	spent                     Spent
	// last is when the previous call answered; conflicted says whether
	// it was a commit the catalog refused (the time to the next load is
	// then iceberg-go's backoff).
	last       time.Time
	conflicted bool
}

// begin accounts the time since the previous call's answer as backoff
// (after a conflict) or, before a commit, as the client's own work, and
// returns the call's start.
func (n *calls) begin(commit bool) time.Time {
	now := time.Now()
	switch {
	case n.last.IsZero():
	case n.conflicted:
		n.spent.Backoff += now.Sub(n.last)
	case commit:
		n.spent.Write += now.Sub(n.last)
	}
	return now
}

type callsKey struct{}

// counted is the table.CatalogIO a writer's transactions commit through:
// it counts, per attempt (found in the context), the loads and commits
// iceberg-go's retry loop makes and the conflicts it meets. It is safe
// for concurrent use as its inner catalog is.
type counted struct{ inner table.CatalogIO }

func (c counted) LoadTable(ctx context.Context, id table.Identifier) (*table.Table, error) {
	n, ok := ctx.Value(callsKey{}).(*calls)
	var start time.Time
	if ok {
		n.loads++
		start = n.begin(false)
	}
	tbl, err := c.inner.LoadTable(ctx, id)
	if ok {
		n.last, n.conflicted = time.Now(), false
		n.spent.Load += n.last.Sub(start)
	}
	if err != nil {
		return nil, err
	}
	return rebind(tbl, c), nil
}

func (c counted) CommitTable(ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error) {
	n, ok := ctx.Value(callsKey{}).(*calls)
	var start time.Time
	if ok {
		n.commits++
		start = n.begin(true)
	}
	meta, loc, err := c.inner.CommitTable(ctx, id, reqs, ups)
	if ok {
		n.last = time.Now()
		n.spent.Commit += n.last.Sub(start)
		n.conflicted = err != nil && (errors.Is(err, table.ErrCommitFailed) || Classify(err) == Refused)
		if n.conflicted {
			n.conflicts++
		}
	}
	return meta, loc, err
}

// rebind returns tbl committing through cat: a loaded table commits
// through the catalog that built it, and the retries must be counted.
func rebind(tbl *table.Table, cat table.CatalogIO) *table.Table {
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), tbl.FS, cat)
}
