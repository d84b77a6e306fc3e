package restserver

import (
	"fmt"
	"net/url"
	"strings"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	katcatalog "github.com/nordisk/katbench/catalog"
)

// nsSeparator is the namespace level separator in paths and the parent query
// (the spec's default, 0x1F, sent URL-encoded as %1F).
const nsSeparator = "\x1f"

// validatePart applies katbench's identifier rule (the embedded catalog's
// ValidateIdentifier: not empty, not "." or "..", no '/', valid UTF-8, no
// control characters) to one level.
func validatePart(part string) error {
	return katcatalog.ValidateIdentifier(table.Identifier{part})
}

// validateNamespace checks every level of a namespace; an empty namespace is
// invalid.
func validateNamespace(ns table.Identifier) error {
	return katcatalog.ValidateIdentifier(ns)
}

// validateTable checks a namespace plus a table name.
func validateTable(ident table.Identifier) error {
	if len(ident) < 2 {
		return fmt.Errorf("%w: table identifier %q needs a namespace and a name", icecatalog.ErrInvalidIdentifier, ident)
	}
	return katcatalog.ValidateIdentifier(ident)
}

// ParseNamespacePath decodes a {namespace} path segment as sent on the wire
// (still percent-encoded, levels joined by %1F) into a validated namespace.
func ParseNamespacePath(escaped string) (table.Identifier, error) {
	s, err := url.PathUnescape(escaped)
	if err != nil {
		return nil, fmt.Errorf("%w: bad percent-encoding in namespace %q", icecatalog.ErrInvalidIdentifier, escaped)
	}
	return parseNamespaceString(s)
}

// parseNamespaceString splits an unescaped namespace on the separator and
// validates it.
func parseNamespaceString(s string) (table.Identifier, error) {
	ns := table.Identifier(strings.Split(s, nsSeparator))
	if err := validateNamespace(ns); err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	return ns, nil
}

// parseNamePath decodes a {table} path segment into a validated name.
func parseNamePath(escaped string) (string, error) {
	s, err := url.PathUnescape(escaped)
	if err != nil {
		return "", fmt.Errorf("%w: bad percent-encoding in name %q", icecatalog.ErrInvalidIdentifier, escaped)
	}
	if err := validatePart(s); err != nil {
		return "", fmt.Errorf("name: %w", err)
	}
	return s, nil
}
