package restserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"

	katcatalog "github.com/nordisk/katbench/catalog"
)

// viewCatalog is the optional ability to store views (katbench's embedded
// catalog has it). The view routes are served, and advertised in
// /v1/config, only for a catalog that has it.
type viewCatalog interface {
	CheckViewExists(ctx context.Context, ident table.Identifier) (bool, error)
	LoadView(ctx context.Context, ident table.Identifier) (view.Metadata, string, []byte, error)
	CreateView(ctx context.Context, ident table.Identifier, spec katcatalog.ViewSpec) (view.Metadata, string, error)
	CommitView(ctx context.Context, ident table.Identifier, reqs []view.Requirement, updates []view.Update) (view.Metadata, string, error)
	ListViews(ctx context.Context, ns table.Identifier) ([]table.Identifier, error)
	DropView(ctx context.Context, ident table.Identifier) error
	RenameView(ctx context.Context, from, to table.Identifier) error
}

var viewEndpoints = []string{
	"GET /v1/{prefix}/namespaces/{namespace}/views",
	"POST /v1/{prefix}/namespaces/{namespace}/views",
	"GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"POST /v1/{prefix}/views/rename",
}

// CreateViewRequest is the body of POST .../views.
type CreateViewRequest struct {
	Name        *string            `json:"name"`
	Location    *string            `json:"location"`
	Schema      *iceberg.Schema    `json:"schema"`
	ViewVersion *view.Version      `json:"view-version"`
	Properties  iceberg.Properties `json:"properties"`
}

// DecodeCreateView decodes and validates a create-view body.
func DecodeCreateView(b []byte) (CreateViewRequest, error) {
	var req CreateViewRequest
	if err := decodeJSON(b, &req); err != nil {
		return req, err
	}
	switch {
	case req.Name == nil:
		return req, fmt.Errorf("%w: missing name", ErrBadRequest)
	case req.Schema == nil:
		return req, fmt.Errorf("%w: missing schema", ErrBadRequest)
	case req.ViewVersion == nil:
		return req, fmt.Errorf("%w: missing view-version", ErrBadRequest)
	case req.Location != nil && *req.Location == "":
		return req, fmt.Errorf("%w: location: empty (leave it out for the default)", ErrBadRequest)
	}
	if err := validatePart(*req.Name); err != nil {
		return req, fmt.Errorf("name: %w", err)
	}
	return req, nil
}

// CommitViewRequest is the body of POST .../views/{view}.
type CommitViewRequest struct {
	Identifier   table.Identifier
	Requirements view.Requirements
	Updates      view.Updates
}

// DecodeCommitView decodes a view commit with iceberg-go's view types.
func DecodeCommitView(b []byte) (CommitViewRequest, error) {
	var wire struct {
		Identifier   *identifierWire `json:"identifier"`
		Requirements json.RawMessage `json:"requirements"`
		Updates      json.RawMessage `json:"updates"`
	}
	if err := decodeJSON(b, &wire); err != nil {
		return CommitViewRequest{}, err
	}
	var req CommitViewRequest
	if wire.Identifier != nil {
		id, err := wire.Identifier.ident("identifier")
		if err != nil {
			return req, err
		}
		req.Identifier = id
	}
	if isNull(wire.Updates) {
		return req, fmt.Errorf("%w: updates are required", ErrBadRequest)
	}
	if !isNull(wire.Requirements) {
		if err := json.Unmarshal(wire.Requirements, &req.Requirements); err != nil {
			return req, fmt.Errorf("%w: requirements: %v", ErrBadRequest, err)
		}
	}
	if err := json.Unmarshal(wire.Updates, &req.Updates); err != nil {
		return req, fmt.Errorf("%w: updates: %v", ErrBadRequest, err)
	}
	return req, nil
}

// handleViews serves every view route.
func (s *Server) handleViews(w http.ResponseWriter, r *http.Request, rt route) {
	vc, ok := s.cat.(viewCatalog)
	if !ok {
		s.writeError(w, r, fmt.Errorf("%w: views", ErrUnsupported))
		return
	}
	ctx := r.Context()
	if rt.kind == routeRenameView {
		req, ok := decodeRequest(s, w, r, DecodeRenameTable)
		if !ok {
			return
		}
		err := vc.RenameView(ctx, req.Source, req.Destination)
		if err == nil {
			writeNoContent(w)
			return
		}
		if errors.Is(err, katcatalog.ErrNameTaken) {
			err = fmt.Errorf("%w: %w", errViewIsTable, err)
		}
		s.writeError(w, r, aboutRename(err, req.Source, req.Destination, true))
		return
	}
	ns, err := ParseNamespacePath(rt.ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if rt.kind == routeViews {
		if r.Method == http.MethodGet {
			s.listViews(w, r, vc, ns)
		} else {
			s.createView(w, r, vc, ns)
		}
		return
	}
	name, err := parseNamePath(rt.table)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ident := append(ns, name)
	switch r.Method {
	case http.MethodHead:
		ok, err := vc.CheckViewExists(ctx, ident)
		s.writeExists(w, r, ok, err, "view", ident)
	case http.MethodGet:
		_, loc, raw, err := vc.LoadView(ctx, ident)
		if err != nil {
			s.writeError(w, r, aboutView(err, ident, ns, nil))
			return
		}
		s.writeSpliced(w, loc, raw, true)
	case http.MethodDelete:
		if err := vc.DropView(ctx, ident); err != nil {
			s.writeError(w, r, aboutView(err, ident, ns, nil))
			return
		}
		writeNoContent(w)
	case http.MethodPost:
		req, ok := decodeRequest(s, w, r, DecodeCommitView)
		if !ok {
			return
		}
		if req.Identifier != nil && !slices.Equal(req.Identifier, ident) {
			s.writeError(w, r, fmt.Errorf("%w: body identifier %v does not match path %v", ErrBadRequest, req.Identifier, ident))
			return
		}
		meta, loc, err := vc.CommitView(ctx, ident, req.Requirements, req.Updates)
		if err != nil {
			s.writeError(w, r, aboutView(commitStateUnknown(err), ident, ns, nil))
			return
		}
		s.writeView(w, loc, meta)
	}
}

func (s *Server) writeView(w http.ResponseWriter, loc string, meta view.Metadata) {
	s.writeJSON(w, http.StatusOK, struct {
		MetadataLocation string            `json:"metadata-location"`
		Metadata         view.Metadata     `json:"metadata"`
		Config           map[string]string `json:"config"`
	}{loc, meta, map[string]string{}})
}

func (s *Server) listViews(w http.ResponseWriter, r *http.Request, vc viewCatalog, ns table.Identifier) {
	pg, err := parsePage(r.URL.Query())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, err := vc.ListViews(r.Context(), ns)
	if err != nil {
		s.writeError(w, r, aboutView(err, nil, ns, nil))
		return
	}
	ids := make([]identifierResponse, 0, len(list))
	for _, id := range list {
		ids = append(ids, identifierResponse{Namespace: icecatalog.NamespaceFromIdent(id), Name: icecatalog.TableNameFromIdent(id)})
	}
	ids, next := applyPage(pg, ids, func(id identifierResponse) string { return id.Name })
	s.writeJSON(w, http.StatusOK, struct {
		Identifiers   []identifierResponse `json:"identifiers"`
		NextPageToken string               `json:"next-page-token,omitempty"`
	}{ids, next})
}

func (s *Server) createView(w http.ResponseWriter, r *http.Request, vc viewCatalog, ns table.Identifier) {
	req, ok := decodeRequest(s, w, r, DecodeCreateView)
	if !ok {
		return
	}
	ident := append(ns, *req.Name)
	spec := katcatalog.ViewSpec{Version: req.ViewVersion, Schema: req.Schema, Properties: req.Properties}
	if req.Location != nil {
		spec.Location = *req.Location
	}
	meta, loc, err := vc.CreateView(r.Context(), ident, spec)
	if err != nil {
		switch {
		case errors.Is(err, katcatalog.ErrNameTaken):
			err = fmt.Errorf("%w: %w", errViewIsTable, err)
		case errors.Is(err, iceberg.ErrInvalidArgument) && !errors.Is(err, katcatalog.ErrInvalidLocation):
			err = fmt.Errorf("%w: %w", errIllegalArgument, err)
		}
		s.writeError(w, r, aboutView(err, ident, ns, ident))
		return
	}
	s.writeView(w, loc, meta)
}

// viewNamed reports whether ident is a view, for table routes that must
// refuse a name a view holds. A catalog without views has none.
func (s *Server) viewNamed(ctx context.Context, ident table.Identifier) bool {
	vc, ok := s.cat.(viewCatalog)
	if !ok {
		return false
	}
	exists, err := vc.CheckViewExists(ctx, ident)
	return err == nil && exists
}
