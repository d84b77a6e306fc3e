// Package catalog is an Apache Iceberg catalog embedded in the process and
// stored in a single bbolt file.
//
// A [Catalog] implements every method of iceberg-go's catalog.Catalog. bbolt
// (<Dir>/catalog.db) holds the namespaces with their properties and, for every
// table, the pointer to its current metadata file. The metadata JSON itself is
// written to the warehouse through iceberg-go's io package, so the same code
// serves file:// and s3:// warehouses.
//
// # Write order
//
// Every write that produces new table metadata writes the metadata file first
// (and, in [Immediate] mode, fsyncs it and every directory it created) and
// only then commits the pointer in bbolt. A pointer therefore never names a
// file that was not completely written before it. A commit that loses the race
// for the pointer removes the file it wrote.
//
// # Read fast paths
//
// Readers never take a lock. The table pointers are mirrored in memory in a
// sharded copy-on-write map ([CheckTableExists] is a map lookup); each pointer
// carries the metadata parsed from the file it names. Because metadata files
// are immutable and every commit writes a new one, the cache is keyed, in
// effect, by metadata location: a commit installs a new pointer with new
// metadata, so a reader can never be served stale metadata, and warm
// [Catalog.LoadTable], [Catalog.ResolveMetadata] and [Catalog.LoadMetadataJSON]
// never read or parse a file. The mirror is replaced under the writer lock
// right after each bbolt commit, so it is always exactly what bbolt holds.
//
// # Durability modes and what a crash can lose
//
// A crash of the process alone (panic, kill -9, OOM) loses nothing that was
// acknowledged, in every mode: bbolt and the metadata files are written with
// write(2) before a call returns, and the kernel keeps those pages.
//
// What follows is about an operating-system crash or power loss:
//
//   - immediate (default): every acknowledged create, commit, rename, drop and
//     namespace change survives. The metadata file and each directory created
//     for it are fsynced before the pointer is written; bbolt fsyncs each
//     commit. Nothing acknowledged is lost and no pointer can name a missing
//     or partial file.
//   - eventual: bbolt runs with NoSync and metadata files are not fsynced per
//     call. A background goroutine fsyncs the metadata files written since the
//     last round, then the bbolt file, every SyncInterval (default 1s), and
//     once more on Close. A crash can lose every change acknowledged since the
//     last completed sync (up to about SyncInterval). Because the kernel may
//     write pages back in any order before that sync, a crash can also leave
//     the bbolt file inconsistent (bbolt's documented NoSync risk: restore
//     from a copy or recreate it) or a pointer naming a metadata file whose
//     contents never reached the disk.
//   - none: nothing is ever fsynced, not even on Close. A crash can lose every
//     change since the catalog was created, with the same inconsistency risks
//     as eventual. For benchmarks and scratch data only.
//
// # Concurrency
//
// A Catalog is safe for concurrent use by multiple goroutines. Writers are
// serialised by bbolt's single writer; CommitTable is atomic per table: the
// pointer is compared with the one the requirements were checked against
// inside the bbolt write transaction, so of two commits from the same base
// exactly one wins and the other fails with an error wrapping
// table.ErrCommitFailed, having changed nothing.
package catalog
