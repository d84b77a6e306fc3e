package restserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	katcatalog "github.com/nordisk/katbench/catalog"
)

// loadTableResponse is the spec's LoadTableResult and CommitTableResponse.
// Config carries the vended storage properties (see storage.go), if any.
type loadTableResponse struct {
	MetadataLocation string            `json:"metadata-location"`
	Metadata         table.Metadata    `json:"metadata"`
	Config           map[string]string `json:"config,omitempty"`
}

// tableIdent decodes the {namespace} and {table} path parameters.
func tableIdent(rt route) (table.Identifier, error) {
	ns, err := ParseNamespacePath(rt.ns)
	if err != nil {
		return nil, err
	}
	name, err := parseNamePath(rt.table)
	if err != nil {
		return nil, err
	}
	return append(ns, name), nil
}

type identifierResponse struct {
	Namespace table.Identifier `json:"namespace"`
	Name      string           `json:"name"`
}

// handleListTables serves GET /v1/namespaces/{namespace}/tables, in one page.
func (s *Server) handleListTables(w http.ResponseWriter, r *http.Request, rt route) {
	ns, err := ParseNamespacePath(rt.ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pg, err := parsePage(r.URL.Query())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if pager, ok := s.cat.(tablePager); ok && pg.size > 0 {
		s.listTablesPage(w, r, pager, ns, pg)
		return
	}
	ids := []identifierResponse{}
	for id, err := range s.cat.ListTables(r.Context(), ns) {
		if err != nil {
			s.writeError(w, r, about(fmt.Errorf("list tables in %v: %w", ns, err), nil, ns, nil))
			return
		}
		ids = append(ids, identifierResponse{
			Namespace: icecatalog.NamespaceFromIdent(id),
			Name:      icecatalog.TableNameFromIdent(id),
		})
	}
	ids, next := applyPage(pg, ids, func(id identifierResponse) string { return id.Name })
	s.writeJSON(w, http.StatusOK, struct {
		Identifiers   []identifierResponse `json:"identifiers"`
		NextPageToken string               `json:"next-page-token,omitempty"`
	}{ids, next})
}

// tablePager is the capability to read one page of a namespace's tables
// without reading the rest (the embedded catalog's ListTablesAfter).
type tablePager interface {
	ListTablesAfter(ctx context.Context, ns table.Identifier, after string, limit int) ([]table.Identifier, bool, error)
}

// listTablesPage answers a paged listing from a catalog that can seek, so a
// page's cost does not grow with the namespace.
func (s *Server) listTablesPage(w http.ResponseWriter, r *http.Request, pager tablePager, ns table.Identifier, pg page) {
	got, more, err := pager.ListTablesAfter(r.Context(), ns, pg.after, pg.size)
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("list tables in %v: %w", ns, err), nil, ns, nil))
		return
	}
	ids := make([]identifierResponse, 0, len(got))
	for _, id := range got {
		ids = append(ids, identifierResponse{Namespace: icecatalog.NamespaceFromIdent(id), Name: icecatalog.TableNameFromIdent(id)})
	}
	next := ""
	if more && len(ids) > 0 {
		next = base64.RawURLEncoding.EncodeToString([]byte(ids[len(ids)-1].Name))
	}
	s.writeJSON(w, http.StatusOK, struct {
		Identifiers   []identifierResponse `json:"identifiers"`
		NextPageToken string               `json:"next-page-token,omitempty"`
	}{ids, next})
}

// handleCreateTable serves POST /v1/namespaces/{namespace}/tables.
func (s *Server) handleCreateTable(w http.ResponseWriter, r *http.Request, rt route) {
	ns, err := ParseNamespacePath(rt.ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, ok := decodeRequest(s, w, r, DecodeCreateTable)
	if !ok {
		return
	}
	ident := append(ns, *req.Name)
	if req.StageCreate {
		s.stageCreate(w, r, ident, req)
		return
	}
	var opts []icecatalog.CreateTableOpt
	if req.Location != nil {
		opts = append(opts, icecatalog.WithLocation(*req.Location))
	}
	if req.PartitionSpec != nil {
		spec := req.PartitionSpec.PartitionSpec
		opts = append(opts, icecatalog.WithPartitionSpec(&spec))
	}
	if req.WriteOrder != nil {
		opts = append(opts, icecatalog.WithSortOrder(req.WriteOrder.SortOrder))
	}
	if req.Properties != nil {
		opts = append(opts, icecatalog.WithProperties(req.Properties))
	}
	tbl, err := s.cat.CreateTable(r.Context(), ident, req.Schema, opts...)
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("create table %v: %w", ident, viewTaken(err)), ident, ns, ident))
		return
	}
	if s.fastLoad != nil {
		// The create answer is the new version's load answer: encoded
		// once, sent, and kept for the first load (a crawl's, say).
		if loc, raw, err := s.fastLoad(r.Context(), ident); err == nil && loc == tbl.MetadataLocation() {
			if a, err := s.encodeAnswer(loc, raw, nil, false); err == nil {
				s.answers.put(answerKey{loc, false}, a)
				w.Header()["Etag"] = []string{a.etag}
				writeRaw(w, http.StatusOK, a.body)
				return
			}
		}
	}
	if loc := tbl.MetadataLocation(); loc != "" {
		w.Header()["Etag"] = []string{tableETag(loc)}
	}
	s.writeJSON(w, http.StatusOK, loadTableResponse{
		MetadataLocation: tbl.MetadataLocation(),
		Metadata:         tbl.Metadata(),
		Config:           s.tableConfig(),
	})
}

// handleTable serves GET, HEAD, POST (commit) and DELETE of a table.
func (s *Server) handleTable(w http.ResponseWriter, r *http.Request, rt route) {
	ident, err := tableIdent(rt)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx := r.Context()
	switch r.Method {
	case http.MethodHead:
		ok, err := s.cat.CheckTableExists(ctx, ident)
		s.writeExists(w, r, ok, err, "table", ident)
	case http.MethodGet:
		s.loadTable(w, r, ident)
	case http.MethodPost:
		s.commitTable(w, r, ident)
	case http.MethodDelete:
		var err error
		if p, ok := s.cat.(icecatalog.PurgeableTable); ok && r.URL.Query().Get("purgeRequested") == "true" {
			err = p.PurgeTable(ctx, ident)
		} else {
			err = s.cat.DropTable(ctx, ident)
		}
		if err != nil {
			s.writeError(w, r, about(fmt.Errorf("drop table %v: %w", ident, err), ident, ident[:len(ident)-1], nil))
			return
		}
		writeNoContent(w)
	}
}

// bufPool recycles response buffers of the spliced answers that are not
// kept (commit and view answers).
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// loadTable answers GET of a table. The answer of a version is encoded
// once per snapshots mode and kept by its metadata location (answerCache),
// so a load is the catalog's lookup of the current location, a map lookup
// and a write. With a catalog that keeps its metadata JSON, the stored
// bytes are spliced into the answer as they are; any other catalog's
// metadata is encoded with encoding/json.
func (s *Server) loadTable(w http.ResponseWriter, r *http.Request, ident table.Identifier) {
	refs, err := refsMode(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var (
		loc  string
		raw  []byte
		meta table.Metadata
	)
	if s.fastLoad != nil {
		loc, raw, err = s.fastLoad(r.Context(), ident)
	} else {
		var tbl *table.Table
		if tbl, err = s.cat.LoadTable(r.Context(), ident); err == nil {
			loc, meta = tbl.MetadataLocation(), tbl.Metadata()
		}
	}
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("load table %v: %w", ident, err), ident, ident[:len(ident)-1], nil))
		return
	}
	key := answerKey{loc, refs}
	a, ok := s.answers.get(key)
	if !ok {
		if a, err = s.encodeAnswer(loc, raw, meta, refs); err != nil {
			s.writeError(w, r, fmt.Errorf("load table %v: %w", ident, err))
			return
		}
		s.answers.put(key, a)
	}
	serveAnswer(w, r, a)
}

// writeSpliced sends a LoadTableResult (withConfig) or CommitTableResponse
// built around raw, the stored metadata JSON, without decoding it.
func (s *Server) writeSpliced(w http.ResponseWriter, loc string, raw []byte, withConfig bool) {
	bp := bufPool.Get().(*[]byte)
	b := s.appendSpliced((*bp)[:0], loc, raw, withConfig)
	writeRaw(w, http.StatusOK, b)
	*bp = b
	bufPool.Put(bp)
}

// appendSpliced appends the answer writeSpliced sends to b.
func (s *Server) appendSpliced(b []byte, loc string, raw []byte, withConfig bool) []byte {
	b = append(b, `{"metadata-location":`...)
	b = katcatalog.AppendJSONString(b, loc)
	b = append(b, `,"metadata":`...)
	b = append(b, raw...)
	if withConfig {
		b = append(b, `,"config":`...)
		b = append(b, s.storageConfigJSON...)
	}
	return append(b, '}')
}

// commitTable serves POST of a table: requirements and updates decoded with
// iceberg-go's own JSON types, then CommitTable. A failed requirement or a
// lost race is 409 CommitFailedException and changes nothing.
func (s *Server) commitTable(w http.ResponseWriter, r *http.Request, ident table.Identifier) {
	req, ok := decodeRequest(s, w, r, DecodeCommitTable)
	if !ok {
		return
	}
	if req.Identifier != nil && !slices.Equal(req.Identifier, ident) {
		s.writeError(w, r, fmt.Errorf("%w: body identifier %v does not match path %v", ErrBadRequest, req.Identifier, ident))
		return
	}
	ctx := r.Context()
	meta, loc, err := s.cat.CommitTable(ctx, ident, req.Requirements, req.Updates)
	if errors.Is(err, katcatalog.ErrNameTaken) {
		s.writeError(w, r, about(fmt.Errorf("commit table %v: %w", ident, viewTaken(err)), ident, ident[:len(ident)-1], ident))
		return
	}
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("commit table %v: %w", ident, commitStateUnknown(s.classifyCommitError(ctx, ident, req.Requirements, err))), ident, ident[:len(ident)-1], nil))
		return
	}
	if s.fastLoad != nil {
		// The stored JSON is the committed metadata unless another commit
		// landed in between, which the location tells.
		if sloc, raw, err := s.fastLoad(ctx, ident); err == nil && sloc == loc {
			s.writeSpliced(w, loc, raw, false)
			// The next load of the new version is then a lookup.
			if a, err := s.encodeAnswer(loc, raw, nil, false); err == nil {
				s.answers.put(answerKey{loc, false}, a)
			}
			return
		}
	}
	s.writeJSON(w, http.StatusOK, loadTableResponse{MetadataLocation: loc, Metadata: meta})
}

// classifyCommitError turns a catalog's plain "requirement failed" error into
// table.ErrCommitFailed. Catalogs are not required to wrap a failed
// requirement in ErrCommitFailed (iceberg-go's SQL catalog does not), so when
// a commit fails for a reason statusOf cannot place, the requirements are
// checked again against the table's current metadata: if one fails now, the
// commit lost a race or asserted stale state, which is a 409, not a 500.
func (s *Server) classifyCommitError(ctx context.Context, ident table.Identifier, reqs []table.Requirement, err error) error {
	code, _ := statusOf(err)
	if code == http.StatusConflict && len(reqs) > 0 {
		// Word the failed requirement as the reference client expects.
		if tbl, lerr := s.cat.LoadTable(ctx, ident); lerr == nil {
			if rerr := failedRequirement(reqs, tbl.Metadata()); rerr != nil {
				return fmt.Errorf("%w: %w", rerr, err)
			}
		}
		return err
	}
	if code != http.StatusInternalServerError || len(reqs) == 0 {
		return err
	}
	var current table.Metadata
	tbl, lerr := s.cat.LoadTable(ctx, ident)
	switch {
	case lerr == nil:
		current = tbl.Metadata()
	case errors.Is(lerr, icecatalog.ErrNoSuchTable):
		current = nil
	default:
		return err
	}
	for _, req := range reqs {
		if verr := req.Validate(current); verr != nil {
			return fmt.Errorf("%w: %v", table.ErrCommitFailed, err)
		}
	}
	return err
}

// handleRename serves POST /v1/tables/rename.
func (s *Server) handleRename(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeRequest(s, w, r, DecodeRenameTable)
	if !ok {
		return
	}
	if _, err := s.cat.RenameTable(r.Context(), req.Source, req.Destination); err != nil {
		s.writeError(w, r, aboutRename(fmt.Errorf("rename table %v to %v: %w", req.Source, req.Destination, viewTaken(err)),
			req.Source, req.Destination, false))
		return
	}
	writeNoContent(w)
}

// viewTaken marks a table create, commit-create, register or rename that
// the catalog refused because a view holds the name (katcatalog.ErrNameTaken,
// decided in the catalog's own write transaction) as errTableIsView, for
// the reference client's wording. Other errors are returned as they are.
func viewTaken(err error) error {
	if errors.Is(err, katcatalog.ErrNameTaken) {
		return fmt.Errorf("%w: %w", errTableIsView, err)
	}
	return err
}

func hasAssertCreate(reqs []table.Requirement) bool {
	for _, r := range reqs {
		if r.GetType() == "assert-create" {
			return true
		}
	}
	return false
}
