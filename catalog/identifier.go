package catalog

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// keySep separates identifier parts in bbolt keys and mirror keys. It can
// never occur inside a part because ValidateIdentifier rejects control
// characters, so the encoding is unambiguous and a namespace's children are
// exactly the keys that start with the namespace key followed by keySep.
const keySep = 0

// ValidateIdentifier reports whether ident is acceptable to katbench as a
// namespace, table or view identifier: at least one part, and no part that
// is empty, is "." or "..", contains '/', NUL or any other control
// character, or is not valid UTF-8 — as written or after any number of
// percent-decodings (so "%2e%2e" and "%252F" are refused too: a part can
// never become a path element or separator, whatever decodes it later).
// This is the one identifier rule of the catalog and of both fronts. The error wraps icecatalog.ErrInvalidIdentifier and
// names the offending part. It does not allocate when ident is valid.
func ValidateIdentifier(ident table.Identifier) error {
	if len(ident) == 0 {
		return fmt.Errorf("%w: empty identifier", icecatalog.ErrInvalidIdentifier)
	}
	for _, part := range ident {
		if err := validatePart(part); err != nil {
			return fmt.Errorf("%w: %s in %q", icecatalog.ErrInvalidIdentifier, err, strings.Join(ident, "."))
		}
	}
	return nil
}

// validatePart returns a plain description of what is wrong with part, or nil.
func validatePart(part string) error {
	if asciiOK(part) {
		return nil
	}
	return checkPart(part)
}

// asciiOK is validatePart's fast path: part is non-empty, not "." or "..",
// and made only of printable ASCII other than '/' and '%'.
func asciiOK(part string) bool {
	if part == "" || part == "." || part == ".." {
		return false
	}
	for i := 0; i < len(part); i++ {
		if b := part[i]; b < 0x20 || b >= 0x7f || b == '/' || b == '%' {
			return false
		}
	}
	return true
}

// checkPart is the full rule, for parts asciiOK does not accept.
func checkPart(part string) error {
	if err := checkPlainPart(part); err != nil {
		return err
	}
	d := part
	for range maxDecodeRounds {
		if !strings.Contains(d, "%") {
			return nil
		}
		next, err := url.PathUnescape(d)
		if err != nil || next == d {
			return nil // a literal '%': harmless, it never decodes
		}
		if err := checkPlainPart(next); err != nil {
			return errString("part " + quote(part) + " percent-decodes to a forbidden name: " + err.Error())
		}
		d = next
	}
	return errString("part " + quote(part) + " is percent-encoded too deeply")
}

// checkPlainPart is the rule for one part taken literally.
func checkPlainPart(part string) error {
	switch part {
	case "":
		return errString("empty part")
	case ".", "..":
		return errString("part " + quote(part) + " is a path element")
	}
	if !utf8.ValidString(part) {
		return errString("part " + quote(part) + " is not valid UTF-8")
	}
	for _, r := range part {
		switch {
		case r == '/':
			return errString("part " + quote(part) + " contains '/'")
		case r == 0:
			return errString("part " + quote(part) + " contains NUL")
		case unicode.IsControl(r):
			return errString("part " + quote(part) + " contains a control character")
		}
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

func quote(s string) string { return fmt.Sprintf("%q", s) }

// validateTableIdent is ValidateIdentifier plus the rule that a table
// identifier has a namespace and a name. A too-short identifier also wraps
// icecatalog.ErrNoSuchTable, as iceberg-go's own catalogs report it.
func validateTableIdent(ident table.Identifier) error {
	if len(ident) < 2 {
		return fmt.Errorf("%w: %w: table identifier %q needs a namespace and a name",
			icecatalog.ErrInvalidIdentifier, icecatalog.ErrNoSuchTable, strings.Join(ident, "."))
	}
	return ValidateIdentifier(ident)
}

// appendKey appends the storage key of ident (parts joined by keySep) to dst.
// Callers validate ident first.
func appendKey(dst []byte, ident table.Identifier) []byte {
	for i, part := range ident {
		if i > 0 {
			dst = append(dst, keySep)
		}
		dst = append(dst, part...)
	}
	return dst
}

// keyOf returns the storage key of ident as a new slice.
func keyOf(ident table.Identifier) []byte {
	n := len(ident)
	for _, p := range ident {
		n += len(p)
	}
	return appendKey(make([]byte, 0, n), ident)
}

// identOf decodes a storage key back into an identifier.
func identOf(key []byte) table.Identifier {
	return table.Identifier(strings.Split(string(key), string(rune(keySep))))
}

// identString is the dotted form used in error messages.
func identString(ident table.Identifier) string { return strings.Join(ident, ".") }
