// Package grpcfront serves any iceberg-go catalog.Catalog over gRPC
// (katbench.catalog.v1.CatalogService, defined in catalogv1/catalog.proto)
// and provides the matching client, which is itself a catalog.Catalog.
//
// The pieces:
//   - [Server] adapts a catalog.Catalog to the service. Table metadata leaves
//     the server as the JSON bytes the catalog already holds when the catalog
//     offers LoadMetadataJSON, so a load costs no re-encoding. Every accepted
//     TCP connection gets TCP_NODELAY set explicitly.
//   - [Client] is a catalog.Catalog, a metadata resolver (ResolveMetadata) and
//     a controller (Control: an empty RPC on the same connection). It caches
//     parsed metadata by metadata location, which is immutable.
//   - Errors cross the wire as gRPC status codes with a google.rpc.ErrorInfo
//     detail naming the iceberg-go sentinel errors the server-side error
//     matched; the client maps them back, so errors.Is behaves exactly as it
//     does against the served catalog in-process.
//   - Optional bearer-token auth: the server is given credentials (id:secret),
//     GetToken exchanges one for a random, expiring token, and every other RPC
//     must carry "authorization: Bearer <token>", checked on the call's
//     headers before its message is read.
//   - Limits (ServerOptions): one message is at most DefaultMaxRecvBytes, a
//     connection carries at most DefaultMaxConcurrentStreams calls, at most
//     DefaultMaxConnections connections are open, and at most MaxTokenCalls
//     GetToken calls — the one call read before its caller is known — run
//     at once.
package grpcfront
