package catalog

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ErrInvalidLocation is a table or view location the catalog refuses: not an
// absolute URI, not under the warehouse (or an allowed root), or carrying a
// "." or ".." path segment after any percent-decoding. It wraps
// iceberg.ErrInvalidArgument, so every front answers it as a client error
// (REST 400, gRPC InvalidArgument); nothing is written when it is returned.
var ErrInvalidLocation = fmt.Errorf("%w: invalid location", iceberg.ErrInvalidArgument)

// maxDecodeRounds bounds how many times a location or identifier part is
// percent-decoded while looking for a hidden "." or ".." segment. Every
// layer that could decode a location once (our URI parser, an IO's own
// parser, a shell or a cleanup script) is covered with room to spare.
const maxDecodeRounds = 8

// locationRoot is a parsed location: lower-case scheme, host ("" for a local
// file), and the path decoded once — as iceberg-go's IOs decode it — with
// no trailing slash.
type locationRoot struct {
	scheme, host, path string
}

// under reports whether l lies strictly inside r (a table never shares the
// root itself).
func (l locationRoot) under(r locationRoot) bool {
	return l.scheme == r.scheme && l.host == r.host && len(l.path) > len(r.path)+1 &&
		l.path[len(r.path)] == '/' && strings.HasPrefix(l.path, r.path)
}

func (l locationRoot) String() string { return l.scheme + "://" + l.host + l.path }

// locationPolicy is the one location rule: every location a catalog
// writes, reads or deletes a file at, and every location it hands a table
// to write at, lies strictly inside one of roots (the warehouse, then any
// allowed locations) and passes ValidateLocation. That covers
//
//   - a table's or view's location (requested, the namespace's "location"
//     property, or the default under the warehouse), on create, staged
//     create, set-location, register and multi-table commits;
//   - every location-valued table or view property (LocationProperties:
//     write.metadata.path, write.data.path and the older data-path names),
//     which decide where metadata files, manifests and data files go. Such
//     a property is constrained, not ignored: a value that passes the rule
//     is kept and honoured; any other value refuses the whole request with
//     an error naming the property and wrapping ErrInvalidLocation (REST
//     400 BadRequestException, gRPC InvalidArgument), and nothing is
//     written;
//   - every metadata file location, checked again right before the file is
//     written, read or removed, so no path through the catalog reaches a
//     file outside the roots even if a caller forgot a check.
//
// It is immutable after newLocationPolicy and safe for concurrent use.
type locationPolicy struct {
	roots []locationRoot
}

// LocationProperties are the table and view properties whose values are
// locations the table's files are written at: iceberg-go's location
// provider reads write.metadata.path (metadata files, manifests, manifest
// lists) and write.data.path (data files); write.object-storage.path and
// write.folder-storage.path are Java's older names for the data path, and
// write.metadata.location is reserved by iceberg-go. Each one present must
// pass the location rule (see Catalog.CheckLocation).
var LocationProperties = []string{
	table.WriteMetadataPathKey,
	table.WriteDataPathKey,
	"write.object-storage.path",
	"write.folder-storage.path",
	table.WriteMetadataLocationKey,
}

// newLocationPolicy parses the warehouse and the allowed roots. A root must
// itself be a valid absolute location.
func newLocationPolicy(warehouse string, allowed []string) (locationPolicy, error) {
	var p locationPolicy
	for i, s := range append([]string{warehouse}, allowed...) {
		r, err := parseLocation(s)
		if err != nil {
			if i == 0 {
				return p, fmt.Errorf("warehouse: %w", err)
			}
			return p, fmt.Errorf("allowed location: %w", err)
		}
		p.roots = append(p.roots, r)
	}
	return p, nil
}

// match validates loc against the policy and returns it normalised
// (trailing slashes removed) and parsed. field names the request field in
// the error.
func (p locationPolicy) match(field, loc string) (string, locationRoot, error) {
	trimmed := strings.TrimRight(loc, "/")
	l, err := parseLocation(trimmed)
	if err != nil {
		return "", l, fmt.Errorf("%s: %w", field, err)
	}
	for _, r := range p.roots {
		if l.under(r) {
			return trimmed, l, nil
		}
	}
	roots := make([]string, len(p.roots))
	for i, r := range p.roots {
		roots[i] = r.String()
	}
	return "", l, fmt.Errorf("%s: %w %q: not under the warehouse or an allowed location (%s)",
		field, ErrInvalidLocation, loc, strings.Join(roots, ", "))
}

// checkProperties applies the rule to every location property in props
// and returns the metadata directory they name ("" when
// write.metadata.path is absent) and its parsed form. A refusal names the
// property.
func (p locationPolicy) checkProperties(props iceberg.Properties) (metadataDir string, at locationRoot, err error) {
	for _, k := range LocationProperties {
		v, ok := props[k]
		if !ok {
			continue
		}
		got, parsed, err := p.match(k, v)
		if err != nil {
			return "", at, fmt.Errorf("property %w", err)
		}
		if k == table.WriteMetadataPathKey {
			metadataDir, at = got, parsed
		}
	}
	return metadataDir, at, nil
}

// ValidateLocation reports whether loc is a well-formed absolute location:
// a URI with a scheme and an absolute path (file:///…, s3://bucket/…), no
// query or fragment, no control character, and no empty, "." or ".." path
// segment in the path as written or after any number of percent-decodings.
// It does not say whether a catalog accepts loc: that also needs loc to be
// under its warehouse (see Catalog.CheckLocation). Errors wrap
// ErrInvalidLocation.
func ValidateLocation(loc string) error {
	_, err := parseLocation(strings.TrimRight(loc, "/"))
	return err
}

// parseLocation is ValidateLocation returning the parsed form.
func parseLocation(loc string) (locationRoot, error) {
	bad := func(why string) (locationRoot, error) {
		return locationRoot{}, fmt.Errorf("%w %q: %s", ErrInvalidLocation, loc, why)
	}
	if loc == "" {
		return bad("empty")
	}
	for i := 0; i < len(loc); i++ {
		if c := loc[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return bad("contains a control character or backslash")
		}
	}
	u, err := url.Parse(loc)
	if err != nil {
		return bad("not a valid URI")
	}
	switch {
	case u.Scheme == "":
		return bad("relative; want an absolute URI such as file:///dir/table or s3://bucket/table")
	case u.Opaque != "":
		return bad("has no absolute path")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(loc, "?#"):
		return bad("has a query or fragment")
	case u.User != nil:
		return bad("carries user information")
	case u.Path != "" && !strings.HasPrefix(u.Path, "/"):
		return bad("has no absolute path")
	}
	if err := checkDecodedSegments(u.EscapedPath()); err != nil {
		return bad(err.Error())
	}
	r := locationRoot{scheme: strings.ToLower(u.Scheme), host: u.Host, path: strings.TrimRight(u.Path, "/")}
	if r.scheme == "file" {
		if !strings.EqualFold(r.host, "localhost") && r.host != "" {
			return bad("a file URI must not name a host")
		}
		r.host = ""
	} else if r.host == "" {
		return bad("names no bucket or host")
	}
	return r, nil
}

// errDotSegment is checkDecodedSegments' complaint.
var errDotSegment = errors.New(`has an empty, "." or ".." path segment (after percent-decoding)`)

// checkDecodedSegments rejects an escaped path that has, as written or
// after any of up to maxDecodeRounds percent-decodings, an empty, "." or
// ".." segment, or a decoded control character. The leading "/" and one
// trailing "/" are allowed.
func checkDecodedSegments(p string) error {
	for range maxDecodeRounds {
		body := strings.TrimPrefix(p, "/")
		if body != "" {
			for seg := range strings.SplitSeq(body, "/") {
				if seg == "" || seg == "." || seg == ".." {
					return errDotSegment
				}
			}
		}
		for i := 0; i < len(p); i++ {
			if c := p[i]; c < 0x20 || c == 0x7f || c == '\\' {
				return errors.New("decodes to a control character or backslash")
			}
		}
		if !strings.Contains(p, "%") {
			return nil
		}
		d, err := url.PathUnescape(p)
		if err != nil || d == p {
			return nil // not decodable further: literal '%' in a name
		}
		p = d
	}
	return errors.New("percent-encoded too deeply")
}

// escapeLocationPart percent-encodes one identifier part as a single path
// segment of a location. Every '%' becomes "%25", so no part can smuggle an
// escape (and with it a "/" or "..") into the location, and a part with an
// invalid escape still gets its own directory.
func escapeLocationPart(part string) string { return url.PathEscape(part) }

// CheckLocation reports whether c accepts loc as a table or view location
// and returns it normalised (trailing slashes removed). field names the
// request field for the error, which wraps ErrInvalidLocation. It is safe
// for concurrent use.
func (c *Catalog) CheckLocation(field, loc string) (string, error) {
	checked, err := c.checkLocation(field, loc)
	return checked.loc, err
}

// CheckLocationProperties reports whether every location property of a
// table or view (LocationProperties) passes the location rule; the error
// names the first that does not and wraps ErrInvalidLocation. Every write
// of the catalog applies it; fronts call it to refuse a request (a staged
// create) before anything else happens. Safe for concurrent use.
func (c *Catalog) CheckLocationProperties(props iceberg.Properties) error {
	_, _, err := c.locations.checkProperties(props)
	return err
}

// metadataDir is the directory new metadata files of a table or view with
// location loc and properties props go to: write.metadata.path when set,
// else <loc>/metadata, and its parsed form. Both the location and every
// location property must pass the rule.
// known, when not nil and naming loc, is loc already checked and parsed
// (a create's new location), and loc is not parsed again.
func (c *Catalog) metadataDir(loc string, props iceberg.Properties, known *checkedLocation) (string, locationRoot, error) {
	var base string
	var at locationRoot
	if known != nil && known.loc == loc {
		base, at = known.loc, known.at
	} else {
		var err error
		if base, at, err = c.locations.match("location", loc); err != nil {
			return "", at, err
		}
	}
	dir, dirAt, err := c.locations.checkProperties(props)
	if err != nil {
		return "", at, err
	}
	if dir == "" {
		dir, dirAt = base+"/metadata", at
		dirAt.path += "/metadata"
	}
	return dir, dirAt, nil
}

// checkedLocation is a table location that passed the location rule
// (normalised: no trailing slash), with its parsed form.
type checkedLocation struct {
	loc string
	at  locationRoot
}

// checkLocation is CheckLocation keeping the parsed form.
func (c *Catalog) checkLocation(field, loc string) (checkedLocation, error) {
	trimmed, at, err := c.locations.match(field, loc)
	return checkedLocation{loc: trimmed, at: at}, err
}

// tableLocation is the location a new table gets when the request names
// none: the namespace's "location" property joined with the table name, or
// <warehouse>/<namespace parts>/<table>, each part escaped as one segment.
// The result is checked like any requested location.
func (c *Catalog) tableLocation(ident table.Identifier, nsProps iceberg.Properties) (checkedLocation, error) {
	base, parts := c.warehouse, []string(ident)
	if l := strings.TrimRight(nsProps.Get("location", ""), "/"); l != "" {
		base, parts = l, ident[len(ident)-1:]
	}
	var b strings.Builder
	b.WriteString(base)
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(escapeLocationPart(p))
	}
	return c.checkLocation("location", b.String())
}
