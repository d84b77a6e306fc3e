package catalog

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// FuzzValidateIdentifier checks ValidateIdentifier against a direct
// statement of the rule, and that every accepted identifier survives the
// storage key encoding unchanged (so two identifiers can never share a key).
func FuzzValidateIdentifier(f *testing.F) {
	for _, s := range []string{"db.t", "%2e%2e.t", "a%2Fb", "%zz.%", "%252e%252e", "a", "", "a..b", "x/y.z", "n\x00ul.t", "tab\t.x", "ü.ß", "\x7f", "..", ".", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dotted string) {
		ident := table.Identifier(strings.Split(dotted, "."))
		if dotted == "" {
			ident = nil
		}
		err := ValidateIdentifier(ident)

		want := len(ident) > 0
		for _, p := range ident {
			// The rule applies to the part as written and to every
			// percent-decoding of it.
			for d, round := p, 0; round < maxDecodeRounds; round++ {
				if d == "" || d == "." || d == ".." || strings.ContainsRune(d, '/') || !utf8.ValidString(d) ||
					strings.IndexFunc(d, unicode.IsControl) >= 0 {
					want = false
					break
				}
				next, err := url.PathUnescape(d)
				if err != nil || next == d {
					break
				}
				d = next
			}
		}
		if (err == nil) != want {
			t.Fatalf("ValidateIdentifier(%q) = %v, want valid=%v", []string(ident), err, want)
		}
		if err != nil {
			if !errors.Is(err, icecatalog.ErrInvalidIdentifier) {
				t.Fatalf("error %v does not wrap ErrInvalidIdentifier", err)
			}
			return
		}
		if back := identOf(keyOf(ident)); !slices.Equal(back, ident) {
			t.Fatalf("key round trip: %q -> %q", []string(ident), []string(back))
		}
	})
}

// FuzzParseDurability checks that any input either parses to one of the
// three modes or fails with ErrInvalidDurability, never anything else.
func FuzzParseDurability(f *testing.F) {
	for _, s := range []string{"", "immediate", "EVENTUAL", " none ", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDurability(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidDurability) {
				t.Fatalf("ParseDurability(%q): %v", s, err)
			}
			return
		}
		if !slices.Contains(Durabilities, d) {
			t.Fatalf("ParseDurability(%q) = %q", s, d)
		}
	})
}
