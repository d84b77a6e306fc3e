// Package dataplane is katbench's data-plane benchmark: Arrow record batches
// of a deterministic synthetic events table are appended to an Iceberg table
// (Parquet files written through iceberg-go's io to the table's warehouse,
// manifests, a catalog commit) and scanned back to Arrow, with a checksum of
// every column compared against what was written.
//
// The pieces, one file each:
//
//   - events.go: the events schema and the seeded generator. Row i of seed s
//     is a pure function of (s, i), so any batch size yields the same table.
//   - checksum.go: an order-independent per-column checksum, so a scan that
//     returns files in any order still verifies, and any changed, moved,
//     lost or duplicated value is detected.
//   - pipeline.go: one append (record stream → Parquet → commit) and one full
//     scan, each returning what it did and how long each phase took.
//   - bench.go: the measured scenarios (data.append.<rows>, data.scan,
//     data.commit.latency) over one lane per transport, interleaved round by
//     round, writing one result line per (lane, scenario).
//   - command.go: `katbench data` — its flags, checked before anything is
//     created, the warehouse's store, and the run through internal/lifecycle.
//
// The benchmark knows a catalog only as an iceberg-go catalog.Catalog (through
// package competitors); which S3 transport carries the bytes is decided by
// the IO properties the caller gave each lane's catalog.
//
// A new data-plane scenario is one scenario_*.go file here. dataplane runs
// on bench's engine and may import bench, competitors (to open the
// catalog a lane commits to), transport, scenarios/s3bench and internal
// packages; never scenarios (the catalog scenarios), workload or dataset.
package dataplane
