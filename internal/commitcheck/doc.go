// Package commitcheck checks that a catalog keeps every commit it
// acknowledged, exactly once, on a linear history.
//
// A [Storm] drives writers that commit to a few tables through iceberg-go's
// own commit path (a table transaction adding one data file, its snapshot
// summary carrying a unique marker under [MarkerProperty]), and records
// every attempt client-side in a [Log]: the marker, the table, the writer
// and the answer — acknowledged, refused or indeterminate (a timeout, a
// 5xx, a lost connection: the commit may or may not have happened).
//
// Afterwards [Check] reads each table's full state back through the
// catalog (snapshots, parents, sequence numbers, the snapshot log, the
// metadata log, refs; every metadata-log file, every snapshot's manifest
// list, and the data files main's head holds — each commit adds one, named
// after its marker, so the state shows every commit even where a catalog
// keeps only the current snapshot) and reports each [Anomaly] with its evidence:
//
//   - lost: an acknowledged marker whose data file is not in the state of
//     main's head (or, when that state cannot be read, in no snapshot);
//   - duplicated: a marker in more than one snapshot;
//   - phantom: a refused marker present (indeterminate ones, present or
//     not, are counted apart and are never an error, as Jepsen does);
//   - forked: a snapshot on the main branch whose parent is not the
//     previous head of the branch, or whose sequence number does not
//     increase;
//   - unreadable: a table, metadata-log file or manifest list that cannot
//     be read.
//
// [Command] is `katbench verify` around them: its flags, the crash
// settings checked against the competitors, one [Cells.Run] per
// competitor, the lines through internal/lifecycle.
//
// Concurrency: a Log is safe for concurrent use; Check reads a catalog
// nobody writes to any more.
package commitcheck
