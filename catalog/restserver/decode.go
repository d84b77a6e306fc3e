package restserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// readBody reads the whole request body, at most limit bytes (or the
// route's limit set by ServeHTTP, if smaller); more is ErrBodyTooLarge.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: %d bytes > limit %d", ErrBodyTooLarge, r.ContentLength, limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, fmt.Errorf("%w: limit %d bytes for this route", ErrBodyTooLarge, mbe.Limit)
		}
		return nil, bodyReadError(err)
	}
	return body, nil
}

// decodeJSON unmarshals exactly one JSON value from b into dst. Syntax
// errors, wrong types, a missing body and trailing data are ErrBadRequest.
// Unknown fields are ignored: no request schema in the spec forbids them.
func decodeJSON(b []byte, dst any) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return fmt.Errorf("%w: empty request body", ErrBadRequest)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("%w: invalid JSON body: %v", ErrBadRequest, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after JSON body", ErrBadRequest)
	}
	return nil
}

// identifierWire is the spec's TableIdentifier.
type identifierWire struct {
	Namespace []string `json:"namespace"`
	Name      *string  `json:"name"`
}

// ident validates the wire identifier and returns it as namespace + name.
func (id *identifierWire) ident(field string) (table.Identifier, error) {
	if id == nil || id.Name == nil {
		return nil, fmt.Errorf("%w: %s: missing name", ErrBadRequest, field)
	}
	out := make(table.Identifier, 0, len(id.Namespace)+1)
	out = append(append(out, id.Namespace...), *id.Name)
	if err := validateTable(out); err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return out, nil
}

// CreateNamespaceRequest is the body of POST /v1/namespaces.
type CreateNamespaceRequest struct {
	Namespace  []string           `json:"namespace"`
	Properties iceberg.Properties `json:"properties"`
}

// DecodeCreateNamespace decodes and validates a create-namespace body.
func DecodeCreateNamespace(b []byte) (CreateNamespaceRequest, error) {
	var req CreateNamespaceRequest
	if err := decodeJSON(b, &req); err != nil {
		return req, err
	}
	if err := validateNamespace(req.Namespace); err != nil {
		return req, fmt.Errorf("namespace: %w", err)
	}
	return req, nil
}

// UpdateNamespacePropertiesRequest is the body of POST .../properties.
type UpdateNamespacePropertiesRequest struct {
	Removals []string           `json:"removals"`
	Updates  iceberg.Properties `json:"updates"`
}

// DecodeUpdateNamespaceProperties decodes a properties update and rejects a
// key that is both removed and updated (ErrUnprocessable, 422 per spec).
func DecodeUpdateNamespaceProperties(b []byte) (UpdateNamespacePropertiesRequest, error) {
	var req UpdateNamespacePropertiesRequest
	if err := decodeJSON(b, &req); err != nil {
		return req, err
	}
	for _, k := range req.Removals {
		if _, ok := req.Updates[k]; ok {
			return req, fmt.Errorf("%w: property %q is both removed and updated", ErrUnprocessable, k)
		}
	}
	return req, nil
}

// CreateTableRequest is the body of POST .../tables. Spec and write order
// are decoded unbound: their source IDs refer to the request's schema and
// are rebound when the catalog builds the metadata.
type CreateTableRequest struct {
	Name          *string                       `json:"name"`
	Location      *string                       `json:"location"`
	Schema        *iceberg.Schema               `json:"schema"`
	PartitionSpec *iceberg.UnboundPartitionSpec `json:"partition-spec"`
	WriteOrder    *table.UnboundSortOrder       `json:"write-order"`
	StageCreate   bool                          `json:"stage-create"`
	Properties    iceberg.Properties            `json:"properties"`
}

// DecodeCreateTable decodes and validates a create-table body.
func DecodeCreateTable(b []byte) (CreateTableRequest, error) {
	var req CreateTableRequest
	if err := decodeJSON(b, &req); err != nil {
		return req, err
	}
	if req.Name == nil {
		return req, fmt.Errorf("%w: missing name", ErrBadRequest)
	}
	if err := validatePart(*req.Name); err != nil {
		return req, fmt.Errorf("name: %w", err)
	}
	if req.Schema == nil {
		return req, fmt.Errorf("%w: missing schema", ErrBadRequest)
	}
	if req.Location != nil && *req.Location == "" {
		return req, fmt.Errorf("%w: location: empty (leave it out for the default)", ErrBadRequest)
	}
	return req, nil
}

// RenameTableRequest is the body of POST /v1/tables/rename.
type RenameTableRequest struct {
	Source      table.Identifier
	Destination table.Identifier
}

// DecodeRenameTable decodes and validates a rename body.
func DecodeRenameTable(b []byte) (RenameTableRequest, error) {
	var wire struct {
		Source      *identifierWire `json:"source"`
		Destination *identifierWire `json:"destination"`
	}
	if err := decodeJSON(b, &wire); err != nil {
		return RenameTableRequest{}, err
	}
	src, err := wire.Source.ident("source")
	if err != nil {
		return RenameTableRequest{}, err
	}
	dst, err := wire.Destination.ident("destination")
	if err != nil {
		return RenameTableRequest{}, err
	}
	return RenameTableRequest{Source: src, Destination: dst}, nil
}

// CommitTableRequest is the body of POST .../tables/{table}. Identifier is
// nil when the body carries none.
type CommitTableRequest struct {
	Identifier   table.Identifier
	Requirements table.Requirements
	Updates      table.Updates
}

// DecodeCommitTable decodes a commit body with iceberg-go's own requirement
// and update decoders. requirements and updates are required by the spec.
func DecodeCommitTable(b []byte) (CommitTableRequest, error) {
	var wire struct {
		Identifier   *identifierWire `json:"identifier"`
		Requirements json.RawMessage `json:"requirements"`
		Updates      json.RawMessage `json:"updates"`
	}
	if err := decodeJSON(b, &wire); err != nil {
		return CommitTableRequest{}, err
	}
	var req CommitTableRequest
	if wire.Identifier != nil {
		id, err := wire.Identifier.ident("identifier")
		if err != nil {
			return req, err
		}
		req.Identifier = id
	}
	if isNull(wire.Requirements) || isNull(wire.Updates) {
		return req, fmt.Errorf("%w: requirements and updates are required", ErrBadRequest)
	}
	if err := json.Unmarshal(wire.Requirements, &req.Requirements); err != nil {
		return req, fmt.Errorf("%w: requirements: %v", ErrBadRequest, err)
	}
	if err := json.Unmarshal(wire.Updates, &req.Updates); err != nil {
		return req, fmt.Errorf("%w: updates: %v", ErrBadRequest, err)
	}
	return req, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// decodeRequest reads the request body within the server's size limit and
// decodes it with decode. On failure it has already answered with the
// mapped error and ok is false.
func decodeRequest[T any](s *Server, w http.ResponseWriter, r *http.Request, decode func([]byte) (T, error)) (req T, ok bool) {
	body, err := readBody(w, r, s.maxBody)
	if err == nil {
		if req, err = decode(body); err == nil {
			return req, true
		}
	}
	s.writeError(w, r, err)
	return req, false
}
