package restserver

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

type namespaceResponse struct {
	Namespace  table.Identifier   `json:"namespace"`
	Properties iceberg.Properties `json:"properties"`
}

// handleListNamespaces serves GET /v1/namespaces[?parent=a%1Fb]. An empty
// parent means top level. Pagination is not implemented: every namespace is
// returned in one page, which the spec allows.
func (s *Server) handleListNamespaces(w http.ResponseWriter, r *http.Request) {
	var parent table.Identifier
	q := r.URL.Query()
	pg, err := parsePage(q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if p := q.Get("parent"); p != "" {
		ns, err := parseNamespaceString(p)
		if err != nil {
			s.writeError(w, r, fmt.Errorf("parent: %w", err))
			return
		}
		parent = ns
	}
	list, err := s.cat.ListNamespaces(r.Context(), parent)
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("list namespaces under %v: %w", parent, err), nil, parent, nil))
		return
	}
	if list == nil {
		list = []table.Identifier{}
	}
	list, next := applyPage(pg, list, func(id table.Identifier) string { return strings.Join(id, nsSeparator) })
	s.writeJSON(w, http.StatusOK, struct {
		Namespaces    []table.Identifier `json:"namespaces"`
		NextPageToken string             `json:"next-page-token,omitempty"`
	}{list, next})
}

// handleCreateNamespace serves POST /v1/namespaces.
func (s *Server) handleCreateNamespace(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeRequest(s, w, r, DecodeCreateNamespace)
	if !ok {
		return
	}
	if err := s.cat.CreateNamespace(r.Context(), req.Namespace, req.Properties); err != nil {
		ns := req.Namespace
		if len(ns) > 1 && errors.Is(err, icecatalog.ErrNoSuchNamespace) {
			// A missing parent is 404 NoSuchNamespaceException naming the
			// parent. The route's OpenAPI entry lists no 404, but the
			// clients map a 404 here to their no-such-namespace error
			// (iceberg-go's ErrNoSuchNamespace, Java's
			// NoSuchNamespaceException), where a 400 would be a bare bad
			// request carrying a "does not exist" message.
			ns = ns[:len(ns)-1]
		}
		s.writeError(w, r, about(fmt.Errorf("create namespace %v: %w", req.Namespace, err), nil, ns, nil))
		return
	}
	props := req.Properties
	if props == nil {
		props = iceberg.Properties{}
	}
	s.writeJSON(w, http.StatusOK, namespaceResponse{Namespace: req.Namespace, Properties: props})
}

// handleNamespace serves GET, HEAD and DELETE of /v1/namespaces/{namespace}.
func (s *Server) handleNamespace(w http.ResponseWriter, r *http.Request, rt route) {
	ns, err := ParseNamespacePath(rt.ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx := r.Context()
	switch r.Method {
	case http.MethodHead:
		ok, err := s.cat.CheckNamespaceExists(ctx, ns)
		s.writeExists(w, r, ok, err, "namespace", ns)
	case http.MethodGet:
		props, err := s.cat.LoadNamespaceProperties(ctx, ns)
		if err != nil {
			s.writeError(w, r, about(fmt.Errorf("load namespace %v: %w", ns, err), nil, ns, nil))
			return
		}
		if props == nil {
			props = iceberg.Properties{}
		}
		s.writeJSON(w, http.StatusOK, namespaceResponse{Namespace: ns, Properties: props})
	case http.MethodDelete:
		if err := s.cat.DropNamespace(ctx, ns); err != nil {
			s.writeError(w, r, about(fmt.Errorf("drop namespace %v: %w", ns, err), nil, ns, nil))
			return
		}
		writeNoContent(w)
	}
}

// handleNamespaceProps serves POST /v1/namespaces/{namespace}/properties.
func (s *Server) handleNamespaceProps(w http.ResponseWriter, r *http.Request, rt route) {
	ns, err := ParseNamespacePath(rt.ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, ok := decodeRequest(s, w, r, DecodeUpdateNamespaceProperties)
	if !ok {
		return
	}
	sum, err := s.cat.UpdateNamespaceProperties(r.Context(), ns, req.Removals, req.Updates)
	if err != nil {
		s.writeError(w, r, about(fmt.Errorf("update namespace %v properties: %w", ns, err), nil, ns, nil))
		return
	}
	// removed and updated are required arrays in the spec; missing lists
	// removals that were not present.
	if sum.Removed == nil {
		sum.Removed = []string{}
	}
	if sum.Updated == nil {
		sum.Updated = []string{}
	}
	if sum.Missing == nil {
		sum.Missing = []string{}
		for _, k := range req.Removals {
			if !slices.Contains(sum.Removed, k) {
				sum.Missing = append(sum.Missing, k)
			}
		}
	}
	s.writeJSON(w, http.StatusOK, sum)
}
