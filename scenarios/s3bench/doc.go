// Package s3bench is the S3 byte-transport micro-bench behind
// `katbench transport`: HEAD, GET, PUT, LIST and ranged GETs through
// minio-go over each byte transport (net/http, io_uring), interleaved
// round by round in one run so machine drift hits every transport alike,
// one result line per (transport, op, size, concurrency).
//
// It owns the S3 operations it measures (ops.go, opspec.go), their
// closed- and open-loop runs (bench.go, openloop.go), the endpoints a run
// measures against (endpoints.go), the floor beside them (floor.go) and
// the transport table (table.go), and the command around them
// (command.go: `katbench transport`'s flags, checked, and its run through
// internal/lifecycle — cmd only wires it). A new S3 operation goes here; a new
// byte transport goes in package transport and needs nothing here.
//
// It runs on bench's engine and may import bench, disturb (load beside
// it), transport, transport/s3 and light internal packages; never a catalog, competitors
// or scenarios: a micro-benchmark links no catalog stack.
// TestImportsStayLight checks that.
package s3bench
