package restserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// DecodeCommitTransaction decodes the body of POST /v1/transactions/commit:
// every table change must carry its identifier.
func DecodeCommitTransaction(b []byte) ([]table.TableCommit, error) {
	var wire struct {
		TableChanges []json.RawMessage `json:"table-changes"`
	}
	if err := decodeJSON(b, &wire); err != nil {
		return nil, err
	}
	if len(wire.TableChanges) == 0 {
		return nil, fmt.Errorf("%w: table-changes: empty", ErrBadRequest)
	}
	out := make([]table.TableCommit, 0, len(wire.TableChanges))
	for i, raw := range wire.TableChanges {
		c, err := DecodeCommitTable(raw)
		if err != nil {
			return nil, fmt.Errorf("table-changes[%d]: %w", i, err)
		}
		if c.Identifier == nil {
			return nil, fmt.Errorf("%w: table-changes[%d]: identifier: missing", ErrBadRequest, i)
		}
		out = append(out, table.TableCommit{Identifier: c.Identifier, Requirements: c.Requirements, Updates: c.Updates})
	}
	return out, nil
}

// handleTransaction serves POST /v1/transactions/commit: every change or
// none, through the catalog's TransactionalCatalog ability; 204.
func (s *Server) handleTransaction(w http.ResponseWriter, r *http.Request) {
	tc, ok := s.cat.(icecatalog.TransactionalCatalog)
	if !ok {
		s.writeError(w, r, fmt.Errorf("%w: multi-table transactions", ErrUnsupported))
		return
	}
	commits, ok := decodeRequest(s, w, r, DecodeCommitTransaction)
	if !ok {
		return
	}
	if err := tc.CommitTransaction(r.Context(), commits); err != nil {
		s.writeError(w, r, fmt.Errorf("commit transaction: %w", commitStateUnknown(err)))
		return
	}
	writeNoContent(w)
}
