package competitors

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/apache/iceberg-go/table"
)

// SnapshotModeLoader is the capability to load a table over the REST
// load-table route in one of the spec's snapshot modes: "all" (every
// snapshot) or "refs" (only the snapshots a branch or tag points at).
// Safe for concurrent use.
type SnapshotModeLoader interface {
	// LoadTableMode loads ident with ?snapshots=mode and reads the whole
	// answer; with count it also decodes the answer to count the snapshots
	// of its metadata (otherwise Snapshots is -1).
	LoadTableMode(ctx context.Context, ident table.Identifier, mode string, count bool) (ModeLoad, error)
	// ModeLoadRequest says how the request is made, for a line's params.
	ModeLoadRequest() string
}

// ModeLoad is the answer to one load in a snapshot mode.
type ModeLoad struct {
	Bytes     int // body bytes received
	Snapshots int // snapshots in the answer's metadata; -1 when not counted
}

var _ SnapshotModeLoader = (*restCompetitor)(nil)

// ModeLoadRequest: the request is katbench's own, beside the catalog
// client, which asks for no mode.
func (*restCompetitor) ModeLoadRequest() string { return "direct GET ?snapshots=" }

// LoadTableMode does GET of ident's load-table path with ?snapshots=mode,
// with the headers and bearer token the catalog client uses.
func (c *restCompetitor) LoadTableMode(ctx context.Context, ident table.Identifier, mode string, count bool) (ModeLoad, error) {
	u, err := c.tableURL(ctx, ident)
	if err != nil {
		return ModeLoad{}, err
	}
	req, err := c.newRequest(ctx, u+"?snapshots="+url.QueryEscape(mode))
	if err != nil {
		return ModeLoad{}, fmt.Errorf("%s load: %w", c.TargetName, err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return ModeLoad{}, fmt.Errorf("%s load %s: %w", c.TargetName, strings.Join(ident, "."), err)
	}
	defer resp.Body.Close()
	cr := &countingReader{r: resp.Body}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(cr, 512))
		return ModeLoad{}, fmt.Errorf("%s load %s: %s: %.200s", c.TargetName, strings.Join(ident, "."), resp.Status, body)
	}
	if !count {
		if _, err := io.Copy(io.Discard, cr); err != nil {
			return ModeLoad{}, fmt.Errorf("%s load %s: read: %w", c.TargetName, strings.Join(ident, "."), err)
		}
		return ModeLoad{Bytes: cr.n, Snapshots: -1}, nil
	}
	var answer struct {
		Metadata struct {
			Snapshots []json.RawMessage `json:"snapshots"`
		} `json:"metadata"`
	}
	if err := json.NewDecoder(cr).Decode(&answer); err != nil {
		return ModeLoad{}, fmt.Errorf("%s load %s: decode: %w", c.TargetName, strings.Join(ident, "."), err)
	}
	if _, err := io.Copy(io.Discard, cr); err != nil {
		return ModeLoad{}, fmt.Errorf("%s load %s: read: %w", c.TargetName, strings.Join(ident, "."), err)
	}
	return ModeLoad{Bytes: cr.n, Snapshots: len(answer.Metadata.Snapshots)}, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
