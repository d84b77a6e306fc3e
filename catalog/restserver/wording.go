package restserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	katcatalog "github.com/nordisk/katbench/catalog"
)

// aboutErr records which objects a handler's error concerns, so writeError
// can word the ErrorModel message the way the reference (Java) client and
// Apache Iceberg's REST compatibility kit expect ("Table does not exist:
// ns.tbl"). The status is still decided by statusOf on the wrapped error.
type aboutErr struct {
	err    error
	object table.Identifier // the table or view the request reads or changes
	ns     table.Identifier // the namespace the request needs
	target table.Identifier // what a create or rename would make
	view   bool             // object and target are views
	rename bool             // object is being renamed to target
}

func (e *aboutErr) Error() string { return e.err.Error() }
func (e *aboutErr) Unwrap() error { return e.err }

// about wraps err (nil stays nil) with the objects it concerns.
func about(err error, object, ns, target table.Identifier) error {
	if err == nil {
		return nil
	}
	return &aboutErr{err: err, object: object, ns: ns, target: target}
}

// aboutRename is about for a rename of object to target.
func aboutRename(err error, object, target table.Identifier, view bool) error {
	if err == nil {
		return nil
	}
	return &aboutErr{err: err, object: object, ns: target[:len(target)-1], target: target, view: view, rename: true}
}

// aboutView is about for a view request.
func aboutView(err error, object, ns, target table.Identifier) error {
	if err == nil {
		return nil
	}
	return &aboutErr{err: err, object: object, ns: ns, target: target, view: true}
}

func dotted(id table.Identifier) string { return strings.Join(id, ".") }

// message is the reference client's wording for err, or "" to keep the
// error's own text.
func (e *aboutErr) message() string {
	kind := "Table"
	if e.view {
		kind = "View"
	}
	if e.rename && e.target != nil {
		taken := ""
		switch {
		case errors.Is(e.err, errTableIsView), errors.Is(e.err, catalog.ErrViewAlreadyExists) && !errors.Is(e.err, errViewIsTable) && !errors.Is(e.err, katcatalog.ErrNameTaken):
			taken = "View"
		case errors.Is(e.err, errViewIsTable), errors.Is(e.err, catalog.ErrTableAlreadyExists), errors.Is(e.err, katcatalog.ErrNameTaken):
			taken = "Table"
		}
		if taken != "" {
			return "Cannot rename " + dotted(e.object) + " to " + dotted(e.target) + ". " + taken + " already exists"
		}
	}
	switch {
	case errors.Is(e.err, errTableIsView) && e.target != nil:
		return "View with same name already exists: " + dotted(e.target)
	case errors.Is(e.err, errViewIsTable) && e.target != nil:
		return "Table with same name already exists: " + dotted(e.target)
	case errors.Is(e.err, catalog.ErrNoSuchView) && e.object != nil:
		return "View does not exist: " + dotted(e.object)
	case errors.Is(e.err, catalog.ErrNoSuchTable) && e.object != nil:
		return kind + " does not exist: " + dotted(e.object)
	case errors.Is(e.err, catalog.ErrNoSuchNamespace) && e.ns != nil:
		return "Namespace does not exist: " + dotted(e.ns)
	case errors.Is(e.err, catalog.ErrNamespaceAlreadyExists) && e.ns != nil:
		return "Namespace already exists: " + dotted(e.ns)
	case errors.Is(e.err, catalog.ErrViewAlreadyExists) && e.target != nil:
		return "View already exists: " + dotted(e.target)
	case errors.Is(e.err, catalog.ErrTableAlreadyExists) && e.target != nil:
		return kind + " already exists: " + dotted(e.target)
	case errors.Is(e.err, catalog.ErrNamespaceNotEmpty) && e.ns != nil:
		return "Namespace " + dotted(e.ns) + " is not empty"
	}
	return ""
}

// Sentinels for a name taken by the other kind of object (a view where a
// table is asked for, and the reverse); both are conflicts (409).
var (
	errTableIsView = fmt.Errorf("%w: a view has that name", catalog.ErrTableAlreadyExists)
	errViewIsTable = fmt.Errorf("%w: a table has that name", catalog.ErrViewAlreadyExists)
)

// messageOf is the ErrorModel message for err.
func messageOf(err error) string {
	var a *aboutErr
	if errors.As(err, &a) {
		if m := a.message(); m != "" {
			return m
		}
	}
	var r *requirementErr
	if errors.As(err, &r) {
		return r.msg
	}
	return err.Error()
}

// requirementErr is a failed commit requirement worded as the reference
// implementation words it ("Requirement failed: current schema changed:
// expected id 0 != 1"). It wraps table.ErrCommitFailed.
type requirementErr struct{ msg string }

func (e *requirementErr) Error() string { return e.msg }
func (e *requirementErr) Unwrap() error { return table.ErrCommitFailed }

// failedRequirement checks reqs against cur (nil: no table) and returns the
// first failure worded as the reference implementation does, or nil.
func failedRequirement(reqs []table.Requirement, cur table.Metadata) error {
	for _, r := range reqs {
		verr := r.Validate(cur)
		if verr == nil {
			continue
		}
		return &requirementErr{msg: requirementMessage(r, cur, verr)}
	}
	return nil
}

// requirementMessage words one failed requirement.
func requirementMessage(r table.Requirement, cur table.Metadata, verr error) string {
	var w struct {
		UUID               string `json:"uuid"`
		CurrentSchemaID    int    `json:"current-schema-id"`
		LastFieldID        int    `json:"last-assigned-field-id"`
		LastPartitionID    int    `json:"last-assigned-partition-id"`
		DefaultSpecID      int    `json:"default-spec-id"`
		DefaultSortOrderID int    `json:"default-sort-order-id"`
	}
	b, _ := json.Marshal(r) // requirements always marshal
	_ = json.Unmarshal(b, &w)
	if cur == nil {
		if r.GetType() == "assert-create" {
			return "Requirement failed: table already exists"
		}
		return "Requirement failed: table does not exist"
	}
	switch r.GetType() {
	case "assert-create":
		return "Requirement failed: table already exists"
	case "assert-table-uuid":
		return fmt.Sprintf("Requirement failed: UUID does not match: expected %s != %s", w.UUID, cur.TableUUID())
	case "assert-current-schema-id":
		return fmt.Sprintf("Requirement failed: current schema changed: expected id %d != %d", w.CurrentSchemaID, cur.CurrentSchema().ID)
	case "assert-last-assigned-field-id":
		return fmt.Sprintf("Requirement failed: last assigned field id changed: expected id %d != %d", w.LastFieldID, cur.LastColumnID())
	case "assert-last-assigned-partition-id":
		last := 0
		if p := cur.LastPartitionSpecID(); p != nil {
			last = *p
		}
		return fmt.Sprintf("Requirement failed: last assigned partition id changed: expected id %d != %d", w.LastPartitionID, last)
	case "assert-default-spec-id":
		return fmt.Sprintf("Requirement failed: default partition spec changed: expected id %d != %d", w.DefaultSpecID, cur.DefaultPartitionSpec())
	case "assert-default-sort-order-id":
		return fmt.Sprintf("Requirement failed: default sort order changed: expected id %d != %d", w.DefaultSortOrderID, cur.DefaultSortOrder())
	}
	msg := verr.Error()
	if rest, ok := strings.CutPrefix(msg, "requirement failed"); ok {
		return "Requirement failed" + rest
	}
	return msg
}
