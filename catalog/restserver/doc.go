// Package restserver serves any iceberg-go catalog.Catalog over the Apache
// Iceberg REST catalog protocol (apache/iceberg open-api/rest-catalog-open-api.yaml).
//
// The server is a plain net/http handler: [New] wraps a catalog, and
// [Server.ServeHTTP] can be mounted anywhere, or [Server.Serve] /
// [Server.ListenAndServe] run it on a listener with sensible timeouts.
//
// What it serves: GET /v1/config, POST /v1/oauth/tokens (client_credentials),
// namespaces (list, create, load, HEAD, delete, update properties) and tables
// (list, create, load, HEAD, delete, rename, commit), under /v1/ and, when a
// prefix is configured, /v1/{prefix}/. Errors are the spec's ErrorModel
// ({"error":{"message","type","code"}}).
//
// Every identifier from a path or a body is validated before the catalog sees
// it, and no malformed request reaches the catalog: bad input gets a 4xx and
// leaves the catalog untouched.
//
// Bodies are bounded before they are read (limits.go): per route (a token
// request TokenBodyBytes, names and properties SmallBodyBytes, metadata
// Options.MaxBodyBytes; more is 413), after authorization (a request without
// a valid token is 401 with its body unread), and all together by an
// in-flight budget (Options.MaxInflightBodyBytes; a request finding no room
// waits, then gets 503).
//
// Hot paths are kept cheap: the config response is encoded once, GET of a
// table splices the catalog's stored metadata JSON into the response when the
// catalog offers it (LoadMetadataJSON), and routing is a split of the path,
// not a regexp table.
package restserver
