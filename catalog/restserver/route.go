package restserver

import (
	"fmt"
	"strings"
)

// routeKind names one REST route (a path template; methods are checked
// separately so a known path with a wrong method is a 405, not a 404).
type routeKind int

const (
	routeConfig         routeKind = iota + 1 // /v1/config
	routeToken                               // /v1/oauth/tokens
	routeNamespaces                          // /v1/{prefix}/namespaces
	routeNamespace                           // /v1/{prefix}/namespaces/{namespace}
	routeNamespaceProps                      // /v1/{prefix}/namespaces/{namespace}/properties
	routeTables                              // /v1/{prefix}/namespaces/{namespace}/tables
	routeTable                               // /v1/{prefix}/namespaces/{namespace}/tables/{table}
	routeRename                              // /v1/{prefix}/tables/rename
	routeRegister                            // /v1/{prefix}/namespaces/{namespace}/register
	routeMetrics                             // /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics
	routeViews                               // /v1/{prefix}/namespaces/{namespace}/views
	routeView                                // /v1/{prefix}/namespaces/{namespace}/views/{view}
	routeRenameView                          // /v1/{prefix}/views/rename
	routeTransaction                         // /v1/{prefix}/transactions/commit
)

// allowed lists the methods each route accepts, as sent in Allow headers.
var allowed = map[routeKind]string{
	routeConfig:         "GET",
	routeToken:          "POST",
	routeNamespaces:     "GET, POST",
	routeNamespace:      "GET, HEAD, DELETE",
	routeNamespaceProps: "POST",
	routeTables:         "GET, POST",
	routeTable:          "GET, HEAD, POST, DELETE",
	routeRename:         "POST",
	routeRegister:       "POST",
	routeMetrics:        "POST",
	routeViews:          "GET, POST",
	routeView:           "GET, HEAD, POST, DELETE",
	routeRenameView:     "POST",
	routeTransaction:    "POST",
}

// route is a matched path: its kind and its still-escaped parameters.
type route struct {
	kind  routeKind
	ns    string // escaped {namespace}
	table string // escaped {table}
}

// parseRoute matches an escaped request path. prefix is the configured
// (escaped) prefix segment, "" for none; /v1/... is accepted either way.
func parseRoute(path, prefix string) (route, error) {
	rest, ok := strings.CutPrefix(path, "/v1/")
	if !ok {
		return route{}, fmt.Errorf("%w: %q", ErrNoSuchRoute, path)
	}
	// The longest route has 5 segments after /v1/ (with a prefix); 7 pieces
	// mean more than that.
	s := strings.SplitN(rest, "/", 7)
	if len(s) > 6 {
		return route{}, fmt.Errorf("%w: %q", ErrNoSuchRoute, path)
	}
	if prefix != "" && len(s) > 1 && s[0] == prefix {
		s = s[1:]
	}
	switch {
	case len(s) == 1 && s[0] == "config":
		return route{kind: routeConfig}, nil
	case len(s) == 2 && s[0] == "oauth" && s[1] == "tokens":
		return route{kind: routeToken}, nil
	case len(s) == 2 && s[0] == "tables" && s[1] == "rename":
		return route{kind: routeRename}, nil
	case len(s) == 2 && s[0] == "views" && s[1] == "rename":
		return route{kind: routeRenameView}, nil
	case len(s) == 2 && s[0] == "transactions" && s[1] == "commit":
		return route{kind: routeTransaction}, nil
	case len(s) >= 1 && s[0] == "namespaces":
		switch {
		case len(s) == 1:
			return route{kind: routeNamespaces}, nil
		case s[1] == "":
			// an empty namespace segment is never a route
		case len(s) == 2:
			return route{kind: routeNamespace, ns: s[1]}, nil
		case len(s) == 3 && s[2] == "properties":
			return route{kind: routeNamespaceProps, ns: s[1]}, nil
		case len(s) == 3 && s[2] == "tables":
			return route{kind: routeTables, ns: s[1]}, nil
		case len(s) == 3 && s[2] == "views":
			return route{kind: routeViews, ns: s[1]}, nil
		case len(s) == 4 && s[2] == "views" && s[3] != "":
			return route{kind: routeView, ns: s[1], table: s[3]}, nil
		case len(s) == 3 && s[2] == "register":
			return route{kind: routeRegister, ns: s[1]}, nil
		case len(s) == 4 && s[2] == "tables" && s[3] != "":
			return route{kind: routeTable, ns: s[1], table: s[3]}, nil
		case len(s) == 5 && s[2] == "tables" && s[3] != "" && s[4] == "metrics":
			return route{kind: routeMetrics, ns: s[1], table: s[3]}, nil
		}
	}
	return route{}, fmt.Errorf("%w: %q", ErrNoSuchRoute, path)
}
