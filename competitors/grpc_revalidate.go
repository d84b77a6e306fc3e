package competitors

import (
	"context"

	"github.com/apache/iceberg-go/table"
)

var _ Revalidator = (*grpcCompetitor)(nil)

// RevalidationRequest: gRPC's conditional load names the version held by
// its metadata location.
func (*grpcCompetitor) RevalidationRequest() string {
	return "gRPC LoadTable with known_metadata_location"
}

// RevalidateTable does a conditional LoadTable: the tag is the metadata
// location of the version held (the front's version stamp), "" for none.
func (c *grpcCompetitor) RevalidateTable(ctx context.Context, ident table.Identifier, etag string) (Revalidation, error) {
	a, err := c.client.LoadTableIfChanged(ctx, ident, etag)
	if err != nil {
		return Revalidation{}, err
	}
	return Revalidation{NotModified: a.NotModified, ETag: a.MetadataLocation, Bytes: a.MetadataBytes}, nil
}
