// Package icebergio is iceberg-go's file IO for s3:// (and s3a://)
// locations, built on katbench's own S3 client: minio-go signing over the
// swappable byte transport of package transport (net/http or io_uring). With
// it, catalog metadata, manifests and Parquet data files ride the same byte
// path the transport micro-bench measures.
//
// Importing the package registers it with iceberg-go's io registry for the
// "s3" and "s3a" schemes (io.Register). iceberg-go's own gocloud S3 IO
// (github.com/apache/iceberg-go/io/gocloud/...) registers the same schemes
// and must not be linked into the same binary: io.Register panics on a
// second registration of a scheme, so linking both fails loudly at start-up
// rather than silently picking one.
//
// # Properties
//
// An FS is configured by the properties iceberg-go passes to io.LoadFS —
// the standard S3 ones, s3.endpoint, s3.access-key-id, s3.secret-access-key,
// s3.region (or client.region) and s3.force-virtual-addressing, plus
// katbench's own: katbench.transport (a registered transport; default its
// baseline, http), katbench.transport.setting.<transport>.<name> (a
// transport's own setting), katbench.transport.pool-size (keep-alive
// connections per host), katbench.scope (who owns the shared clients) and
// katbench.s3.part-size (multipart part size). Nothing is read from the
// environment: a missing endpoint or key is an error.
//
// Clients are shared per (endpoint, keys, region, addressing, transport,
// its settings, pool size, scope), so every table of one owner reuses one
// keep-alive pool and two owners never share one. CloseIdle closes the
// idle connections of every client; Release(scope) closes and forgets a
// scope's.
//
// # Semantics
//
// Open issues one HEAD (existence and size); Read streams one ranged GET
// from the current offset; ReadAt issues one ranged GET per call and may be
// called concurrently, which is what Parquet footers and column chunks need.
// ReadFile is one GET. Create returns a writer that buffers up to one part:
// a file that fits is one PUT on Close, a larger one becomes a multipart
// upload whose parts are sent while the next is filled, so at most two parts
// are held in memory whatever the file size. Nothing is visible under the
// name until Close succeeds; a failed upload is aborted.
//
// A missing object (or bucket) yields an error satisfying
// errors.Is(err, fs.ErrNotExist), as iceberg-go expects; keys the store
// refuses yield ErrAccessDenied (which also satisfies fs.ErrPermission),
// naming the endpoint. Remove follows S3: removing a missing key succeeds.
//
// An FS is safe for concurrent use. A File is not, except ReadAt; a writer
// is not.
package icebergio
