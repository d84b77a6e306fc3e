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
// and only then commits the pointer in bbolt. In [Immediate] mode the file,
// and every directory on its path that is new (including directories a
// concurrent writer created and has not made durable yet), are made durable
// by the commit step that commits the pointer, before its bbolt
// transaction (see Group commit). A pointer therefore never names a file
// that was not completely written (and, in Immediate mode, made durable)
// before it. A commit that loses the race for the pointer removes the file
// it wrote.
//
// # Group commit
//
// Concurrent writers share commit steps. Each writer writes its own
// metadata file in its own goroutine, without fsync, and hands its pointer
// change to a group committer: a writer that finds no commit step running
// runs one at once, alone — a single writer waits for nobody and there is
// no timer — and the writers that arrive while a step runs are committed
// together by the next one. A step first makes every file of its batch
// durable, then commits all the batch's pointers in one bbolt transaction
// (one fsync of bbolt's data pages and one of its meta page for the whole
// batch). How the files are made durable depends on the batch: a lone file
// is fsynced, together with its new directories, all in parallel (syncfs
// would also flush whatever else is dirty on the file system, which costs
// a lone writer more than the fsyncs it saves); two or more files on Linux
// take one syncfs(2) of their file system, which commits every file and
// directory entry of the batch in one journal commit. Files on a file
// system the catalog cannot syncfs are fsynced. An s3:// warehouse has
// nothing to sync: its files are durable when their upload returns.
//
// Every writer still gets its own result: a writer whose files could not be
// made durable gets that error and its pointer is left out of the
// transaction; a writer whose check fails (a table that exists, a pointer
// that moved) gets its own error and the rest of its batch commits; a
// change that fails half-applied is rolled back by rerunning the batch's
// transaction without it (in memory; nothing reaches the disk before the
// commit). The in-memory mirror is updated after each batch commits, in
// batch order, before any writer of the batch returns.
//
// A writer is acknowledged only after its metadata file was made durable
// and then the bbolt transaction holding its pointer committed, which in
// Immediate mode means fsynced: group commit changes how many syncs a write
// costs, not what an acknowledged write promises. A directory a writer
// creates stays "pending" until the step that synced it succeeded; any
// other writer whose path runs into a pending directory syncs that
// directory's parent itself, so no writer depends on another writer's
// step.
//
// # Commit log
//
// With Options.CommitLog (Immediate mode only), a commit step makes its
// batch durable by a write-ahead log instead of a synced bbolt commit,
// as etcd does: the batch's metadata files and new directories are made
// durable first, exactly as above; then the batch's key changes are
// appended to the log (Dir/wal) as one record — length, CRC32C over the
// sequence number and payload, sequence number, payload — and flushed
// with one fdatasync; only then are the writers acknowledged. The log's
// segments are written with zeros when they are started, so an append
// overwrites blocks the file system already holds and its fdatasync
// flushes data alone (no journal commit), which is the floor's own flush.
//
// bbolt is the applied state. Every committed batch is applied to one
// open bbolt write transaction; a checkpointer commits that transaction
// (bbolt's synced commit, with the sequence number of the last batch it
// holds stored in the same transaction) when 4 MiB of log were appended
// or a second passed, and then removes the segments it covers, so the
// log holds the batches since the last checkpoint and one segment at
// most. Between checkpoints the catalog writes nothing to the bbolt file,
// so after a crash the file is exactly its last checkpoint. Readers of
// bbolt (namespaces, listings, views) read the open transaction under the
// writer lock; table pointers are read from the in-memory mirror, which
// is published after the log flush, as before. A create reads its
// namespace's properties from the bbolt file's last commit instead, with
// no lock, while no namespace changed since the last checkpoint (a
// checkpoint holds only acknowledged groups, so nothing newer exists).
//
// A batch's changes are checked and applied in the open transaction, in
// batch order, then taken back out before the log append (so no reader
// sees a change the log does not hold yet) and applied again after the
// flush. An op whose check or apply fails has its own changes taken back
// and fails alone. A failed append or flush leaves the outcome unknown:
// the writers get an error wrapping ErrCommitStateUnknown, their metadata
// files are kept, and every later write fails until the catalog is
// reopened.
//
// Open always recovers a log it finds, whatever the options say: the
// records after the checkpoint bbolt holds are replayed onto bbolt in one
// synced transaction, and the segments removed. A record cut short or
// failing its checksum ends the log (it was never acknowledged, since the
// fdatasync that would have made it whole did not return); a gap in the
// sequence numbers is refused with ErrCorrupt. Recovery reports what was
// replayed and how long it took.
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
// The parsed metadata is bounded by Options.MetadataCacheBytes (default
// [DefaultMetadataCacheBytes], counted as metadata JSON bytes): past it,
// the tables read least recently (CLOCK order) let theirs go, and their
// next load reads and parses the file again, once. A read only sets a bit;
// eviction runs when metadata is attached, never on the warm path.
//
// # Locations and IO
//
// The catalog writes, reads and removes files only inside its warehouse
// and the allowed locations (Options.AllowedLocations), and hands a table
// only such places to write at: every table and view location, every
// location property ([LocationProperties]: write.metadata.path,
// write.data.path, …) and every metadata file location passes one rule
// ([Catalog.CheckLocation]). A location property outside is refused,
// naming it, with an error wrapping [ErrInvalidLocation]; one inside is
// honoured. A pointer that names a file outside (written by an older
// version, or before the warehouse moved) is refused the same way when
// it is read.
//
// The IO the catalog writes with is configured by Options.IOProps alone,
// loaded once per root at Open. Table properties never configure it: a
// table whose properties name another S3 endpoint, keys or region changes
// nothing about where the catalog connects or what it signs with.
//
// # File modes
//
// The bbolt file is created 0600. Metadata files are created with mode
// 0666 and directories with 0755 (iceberg-go's local IO), both reduced by
// the process umask: with the common umask 022 they are 0644 and 0755,
// readable by every local user. Set a umask such as 077 before starting a
// process that owns a catalog to keep its files to its user.
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
//     for it are made durable (fsync, or syncfs for a batch) before the
//     pointer is written; bbolt fsyncs each commit. Nothing acknowledged is
//     lost and no pointer can name a missing or partial file. syncfs reports
//     write-back errors of the file system only since Linux 5.8; on older
//     kernels a failed write-back during a batched sync may go unreported.
//     With the commit log, the same holds with the log in bbolt's place:
//     a batch is acknowledged after its files and then its log record
//     were flushed, and a crash at any point loses only batches whose
//     record's fdatasync had not returned; bbolt's checkpoints are its
//     own atomic, synced commits, and Open replays the rest.
//   - eventual: the commit log is not written. bbolt runs with NoSync and metadata files are not fsynced per
//     call. A background goroutine fsyncs the metadata files written since the
//     last round, then the bbolt file, every SyncInterval (default 1s), and
//     once more on Close. A crash can lose every change acknowledged since the
//     last completed sync (up to about SyncInterval). Because the kernel may
//     write pages back in any order before that sync, a crash can also leave
//     the bbolt file inconsistent (bbolt's documented NoSync risk: restore
//     from a copy or recreate it) or a pointer naming a metadata file whose
//     contents never reached the disk.
//   - none: the commit log is not written. Nothing is ever fsynced, not
//     even on Close. A crash can lose every
//     change since the catalog was created, with the same inconsistency risks
//     as eventual. For benchmarks and scratch data only.
//
// # Concurrency
//
// A Catalog is safe for concurrent use by multiple goroutines. Writers write
// their metadata files concurrently; their files are made durable and their
// bbolt changes committed in batches by one writer at a time (see Group
// commit). CommitTable is atomic
// per table: the pointer is compared with the one the requirements were
// checked against inside the bbolt write transaction (in the same batch, a
// change sees the changes ordered before it), so of two commits from the
// same base exactly one wins and the other fails with an error wrapping
// table.ErrCommitFailed, having changed nothing.
package catalog
