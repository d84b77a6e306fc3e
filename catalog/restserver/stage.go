package restserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// locator is the optional ability of a catalog to say where a new table
// would live (katbench's embedded catalog has it). Staged creates need it.
type locator interface {
	TableLocation(ctx context.Context, ident table.Identifier) (string, error)
	CheckLocation(field, loc string) (string, error)
	CheckLocationProperties(props iceberg.Properties) error
}

// registrar is the optional ability to register an existing metadata file.
type registrar interface {
	RegisterTable(ctx context.Context, ident table.Identifier, metadataLocation string) (*table.Table, error)
}

// stagedResponse is a LoadTableResult for a staged table: there is no
// metadata file yet, so metadata-location is absent.
type stagedResponse struct {
	Metadata table.Metadata    `json:"metadata"`
	Config   map[string]string `json:"config"`
}

// stageCreate answers a create with stage-create: the metadata the table
// would start with, and nothing written. The client later commits it with
// an assert-create requirement, which creates the table (CommitTable).
func (s *Server) stageCreate(w http.ResponseWriter, r *http.Request, ident table.Identifier, req CreateTableRequest) {
	loc, ok := s.cat.(locator)
	if !ok {
		s.writeError(w, r, fmt.Errorf("%w: stage-create", ErrUnsupported))
		return
	}
	ctx := r.Context()
	ns := ident[:len(ident)-1]
	if s.viewNamed(ctx, ident) {
		// An early answer only: the commit that creates the table checks
		// the name again, atomically, in the catalog.
		s.writeError(w, r, about(fmt.Errorf("stage create table %v: %w", ident, errTableIsView), ident, ns, ident))
		return
	}
	if exists, err := s.cat.CheckTableExists(ctx, ident); err != nil || exists {
		if err == nil {
			err = icecatalog.ErrTableAlreadyExists
		}
		s.writeError(w, r, about(fmt.Errorf("stage create table %v: %w", ident, err), ident, ns, ident))
		return
	}
	var (
		location string
		err      error
	)
	if req.Location != nil {
		location, err = loc.CheckLocation("location", *req.Location)
	} else {
		location, err = loc.TableLocation(ctx, ident)
	}
	if err == nil {
		err = loc.CheckLocationProperties(req.Properties)
	}
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("stage create table %v: %w", ident, err), ident, ns, ident))
		return
	}
	spec := iceberg.UnpartitionedSpec
	if req.PartitionSpec != nil {
		ps := req.PartitionSpec.PartitionSpec
		spec = &ps
	}
	order := table.UnsortedSortOrder
	if req.WriteOrder != nil {
		order = req.WriteOrder.SortOrder
	}
	meta, err := table.NewMetadata(req.Schema, spec, order, location, req.Properties)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("stage create table %v: %w: %w", ident, ErrBadRequest, err))
		return
	}
	s.writeJSON(w, http.StatusOK, stagedResponse{Metadata: meta, Config: map[string]string{}})
}

// RegisterTableRequest is the body of POST .../namespaces/{namespace}/register.
type RegisterTableRequest struct {
	Name             *string `json:"name"`
	MetadataLocation *string `json:"metadata-location"`
	Overwrite        bool    `json:"overwrite"`
}

// DecodeRegisterTable decodes and validates a register body.
func DecodeRegisterTable(b []byte) (RegisterTableRequest, error) {
	var req RegisterTableRequest
	if err := decodeJSON(b, &req); err != nil {
		return req, err
	}
	if req.Name == nil {
		return req, fmt.Errorf("%w: missing name", ErrBadRequest)
	}
	if err := validatePart(*req.Name); err != nil {
		return req, fmt.Errorf("name: %w", err)
	}
	if req.MetadataLocation == nil || *req.MetadataLocation == "" {
		return req, fmt.Errorf("%w: metadata-location: missing", ErrBadRequest)
	}
	if req.Overwrite {
		return req, fmt.Errorf("%w: overwrite", ErrUnsupported)
	}
	return req, nil
}

// handleRegister serves POST .../namespaces/{namespace}/register.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request, rt route) {
	ns, err := ParseNamespacePath(rt.ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	reg, ok := s.cat.(registrar)
	if !ok {
		s.writeError(w, r, fmt.Errorf("%w: register", ErrUnsupported))
		return
	}
	req, ok := decodeRequest(s, w, r, DecodeRegisterTable)
	if !ok {
		return
	}
	ident := append(ns, *req.Name)
	tbl, err := reg.RegisterTable(r.Context(), ident, *req.MetadataLocation)
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("register table %v: %w", ident, viewTaken(err)), ident, ns, ident))
		return
	}
	s.writeJSON(w, http.StatusOK, loadTableResponse{MetadataLocation: tbl.MetadataLocation(), Metadata: tbl.Metadata()})
}

// handleMetrics serves POST .../tables/{table}/metrics: the report is read
// (within the body limit) and dropped, as the spec allows; 204.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request, rt route) {
	if _, err := tableIdent(rt); err != nil {
		s.writeError(w, r, err)
		return
	}
	if _, err := readBody(w, r, s.maxBody); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeNoContent(w)
}
