package commitcheck

import (
	"context"
	"errors"

	"github.com/apache/iceberg-go/table"
)

// calls counts the catalog calls of one commit attempt. One writer owns
// it; it is not safe for concurrent use.
type calls struct {
	loads, commits, conflicts int
}

type callsKey struct{}

// counted is the table.CatalogIO a writer's transactions commit through:
// it counts, per attempt (found in the context), the loads and commits
// iceberg-go's retry loop makes and the conflicts it meets. It is safe
// for concurrent use as its inner catalog is.
type counted struct{ inner table.CatalogIO }

func (c counted) LoadTable(ctx context.Context, id table.Identifier) (*table.Table, error) {
	if n, ok := ctx.Value(callsKey{}).(*calls); ok {
		n.loads++
	}
	tbl, err := c.inner.LoadTable(ctx, id)
	if err != nil {
		return nil, err
	}
	return rebind(tbl, c), nil
}

func (c counted) CommitTable(ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error) {
	n, ok := ctx.Value(callsKey{}).(*calls)
	if ok {
		n.commits++
	}
	meta, loc, err := c.inner.CommitTable(ctx, id, reqs, ups)
	if ok && err != nil && (errors.Is(err, table.ErrCommitFailed) || Classify(err) == Refused) {
		n.conflicts++
	}
	return meta, loc, err
}

// rebind returns tbl committing through cat: a loaded table commits
// through the catalog that built it, and the retries must be counted.
func rebind(tbl *table.Table, cat table.CatalogIO) *table.Table {
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), tbl.FS, cat)
}
