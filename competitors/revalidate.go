package competitors

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/apache/iceberg-go/table"
)

// Revalidator is the capability to load a table conditionally, as a
// freshness-aware client does: send the entity tag of the version it holds
// (HTTP If-None-Match) and either learn that the version is still current
// (304 Not Modified, no body) or receive the table.
type Revalidator interface {
	// RevalidateTable loads ident, sending etag ("" sends none). The
	// answer is a 200 with the table (its ETag, if the server sends one,
	// and the bytes received) or a 304; any other status is an error.
	RevalidateTable(ctx context.Context, ident table.Identifier, etag string) (Revalidation, error)
	// RevalidationRequest says how the request is made, for the params of
	// a result line ("direct If-None-Match": by katbench itself, beside
	// the catalog client, which sends no If-None-Match).
	RevalidationRequest() string
}

// Revalidation is the answer to one conditional load.
type Revalidation struct {
	NotModified bool   // 304: the held version is current
	ETag        string // the answer's ETag, "" when none was sent
	Bytes       int    // body bytes received
}

var _ Revalidator = (*restCompetitor)(nil)

// directLoad is what a REST competitor needs to make a load request of its
// own on the catalog's connection pool: the base URL, the configured
// prefix and the extra headers; the path prefix and
// namespace separator the server's config announces are fetched once, on
// first use. Safe for concurrent use.
type directLoad struct {
	base, prefix string
	headers      map[string]string

	once    sync.Once
	pathErr error
	root    string // base + "/v1/" + escaped prefix segment (if any)
	sep     string // escaped namespace separator
}

// RevalidationRequest: the If-None-Match request is katbench's own.
func (*restCompetitor) RevalidationRequest() string { return "direct If-None-Match" }

// RevalidateTable does GET of ident's load-table path with If-None-Match
// etag, with the headers and bearer token the catalog client uses.
func (c *restCompetitor) RevalidateTable(ctx context.Context, ident table.Identifier, etag string) (Revalidation, error) {
	u, err := c.tableURL(ctx, ident)
	if err != nil {
		return Revalidation{}, err
	}
	req, err := c.newRequest(ctx, u)
	if err != nil {
		return Revalidation{}, fmt.Errorf("%s revalidate: %w", c.TargetName, err)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return Revalidation{}, fmt.Errorf("%s revalidate %s: %w", c.TargetName, strings.Join(ident, "."), err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return Revalidation{}, fmt.Errorf("%s revalidate %s: read: %w", c.TargetName, strings.Join(ident, "."), err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return Revalidation{ETag: resp.Header.Get("ETag"), Bytes: int(n)}, nil
	case http.StatusNotModified:
		return Revalidation{NotModified: true, ETag: resp.Header.Get("ETag"), Bytes: int(n)}, nil
	}
	return Revalidation{}, fmt.Errorf("%s revalidate %s: %s", c.TargetName, strings.Join(ident, "."), resp.Status)
}

// tableURL is the load-table URL of ident on the server, resolving the
// server's path prefix and separator on first use.
func (c *restCompetitor) tableURL(ctx context.Context, ident table.Identifier) (string, error) {
	d := &c.direct
	d.once.Do(func() { d.pathErr = d.resolve(ctx, c) })
	if d.pathErr != nil {
		return "", d.pathErr
	}
	if len(ident) < 2 {
		return "", fmt.Errorf("%s: %v is not a table identifier", c.TargetName, ident)
	}
	ns := make([]string, len(ident)-1)
	for i, level := range ident[:len(ident)-1] {
		ns[i] = url.PathEscape(level)
	}
	return d.root + "namespaces/" + strings.Join(ns, d.sep) + "/tables/" + url.PathEscape(ident[len(ident)-1]), nil
}

// newRequest is a GET of u with the catalog client's headers and token.
func (c *restCompetitor) newRequest(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range c.direct.headers {
		req.Header.Set(k, v)
	}
	if c.auth != nil {
		k, v, err := c.auth.AuthHeader()
		if err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		req.Header.Set(k, v)
	}
	if c.signer != nil {
		if err := c.signer.sign(req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// resolve reads the server's config (as the catalog client does at
// connect) for the path prefix and namespace separator it announces; the
// server's overrides win over the client's own settings.
func (d *directLoad) resolve(ctx context.Context, c *restCompetitor) error {
	req, err := c.newRequest(ctx, c.configURL)
	if err != nil {
		return fmt.Errorf("%s revalidate: config: %w", c.TargetName, err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s revalidate: config: %w", c.TargetName, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s revalidate: GET config: %s", c.TargetName, resp.Status)
	}
	var cfg struct {
		Defaults  map[string]string `json:"defaults"`
		Overrides map[string]string `json:"overrides"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&cfg); err != nil {
		return fmt.Errorf("%s revalidate: decode config: %w", c.TargetName, err)
	}
	pick := func(key, own, def string) string {
		if v := cfg.Overrides[key]; v != "" {
			return v
		}
		if own != "" {
			return own
		}
		if v := cfg.Defaults[key]; v != "" {
			return v
		}
		return def
	}
	d.root = strings.TrimSuffix(d.base, "/") + "/v1/"
	// The prefix is a path segment already in its escaped form (Nessie
	// announces "main%7Cwarehouse"), inserted as it is, as Iceberg's own
	// clients do.
	if p := pick("prefix", d.prefix, ""); p != "" {
		d.root += strings.Trim(p, "/") + "/"
	}
	d.sep = pick("namespace-separator", "", "%1F")
	return nil
}
