package dataplane

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Compression codecs accepted by [TableProps], as iceberg-go names them.
var Compressions = []string{"zstd", "snappy", "none"}

// ErrBadOption is returned for a write option iceberg-go would not accept.
var ErrBadOption = errors.New("dataplane: bad option")

// RowGroupBytes is the write.parquet.row-group-size-bytes [TableProps]
// sets for a target data file size: an eighth of it, within [1 MiB,
// 128 MiB] (128 MiB is iceberg-go's default). arrow-go's buffered writer,
// which iceberg-go uses, holds the whole encoded row group in memory and,
// while it closes the group, a second copy in its output sink; a file is
// only rolled once a row group has been flushed. Tying the row group to the
// target keeps that memory at about a quarter of the target instead of
// 128 MiB (or 1,048,576 rows, iceberg-go's row limit) whatever the target.
func RowGroupBytes(targetFileSize int64) int64 {
	return min(max(targetFileSize/8, 1<<20), 128<<20)
}

// TableProps returns the table properties that set the Parquet codec
// (zstd, snappy or none) and the target data file size in bytes (0 keeps
// iceberg-go's default, 512 MiB, and its 128 MiB row groups); a target
// also sets the row group size to [RowGroupBytes] of it.
func TableProps(compression string, targetFileSize int64) (iceberg.Properties, error) {
	codec := ""
	switch compression {
	case "zstd", "snappy":
		codec = compression
	case "none":
		codec = "uncompressed"
	default:
		return nil, fmt.Errorf("%w: compression %q (want zstd, snappy or none)", ErrBadOption, compression)
	}
	if targetFileSize < 0 {
		return nil, fmt.Errorf("%w: target file size %d", ErrBadOption, targetFileSize)
	}
	p := iceberg.Properties{table.ParquetCompressionKey: codec}
	if targetFileSize > 0 {
		p[table.WriteTargetFileSizeBytesKey] = strconv.FormatInt(targetFileSize, 10)
		p[table.ParquetRowGroupSizeBytesKey] = strconv.FormatInt(RowGroupBytes(targetFileSize), 10)
	}
	return p, nil
}

// AppendResult is what one append did and how long its phases took.
type AppendResult struct {
	Rows  int64 // rows the new snapshot added (added-records)
	Files int64 // data files it added (added-data-files)
	Bytes int64 // Parquet bytes it added (added-files-size)

	// Write is Transaction.Append: pulling the record stream, encoding
	// Parquet, the data file PUTs, and the manifest and manifest list.
	Write time.Duration
	// Gen is the part of Write spent generating the batches.
	Gen time.Duration
	// Overruns counts batches built beyond the reader's LimitLive bound
	// because the writer had not released earlier ones in time.
	Overruns int64
	// Commit is Transaction.Commit: the new metadata file and the catalog
	// commit (including its retries, if any).
	Commit time.Duration

	// Table is the table as committed.
	Table *table.Table
}

// Total is the end-to-end duration of the append.
func (r AppendResult) Total() time.Duration { return r.Write + r.Commit }

// Append appends every batch of rdr to tbl in one transaction and commits
// it. It checks that the snapshot it made added exactly the rows rdr
// produced. The reader is not released.
func Append(ctx context.Context, tbl *table.Table, rdr *Reader) (AppendResult, error) {
	var res AppendResult
	want := rdr.end - rdr.next
	t0 := time.Now()
	txn := tbl.NewTransaction()
	if err := txn.Append(ctx, rdr, nil); err != nil {
		return res, fmt.Errorf("append %d rows: %w", want, err)
	}
	t1 := time.Now()
	committed, err := txn.Commit(ctx)
	t2 := time.Now()
	if err != nil {
		return res, fmt.Errorf("commit append of %d rows: %w", want, err)
	}
	res.Write, res.Commit, res.Gen, res.Table = t1.Sub(t0), t2.Sub(t1), rdr.GenTime(), committed
	res.Overruns = rdr.Overruns()

	snap := committed.CurrentSnapshot()
	if snap == nil || snap.Summary == nil {
		return res, fmt.Errorf("append of %d rows: committed table has no current snapshot summary", want)
	}
	p := snap.Summary.Properties
	for _, f := range []struct {
		key string
		dst *int64
	}{{"added-records", &res.Rows}, {"added-data-files", &res.Files}, {"added-files-size", &res.Bytes}} {
		v, err := strconv.ParseInt(p[f.key], 10, 64)
		if err != nil {
			return res, fmt.Errorf("append: snapshot %d summary %s=%q: %w", snap.SnapshotID, f.key, p[f.key], err)
		}
		*f.dst = v
	}
	if res.Rows != want {
		return res, fmt.Errorf("%w: snapshot %d added %d rows, the stream held %d", ErrChecksumMismatch, snap.SnapshotID, res.Rows, want)
	}
	return res, nil
}

// ScanResult is what one full scan read and how long it took.
type ScanResult struct {
	Rows  int64 // rows returned
	Files int   // data files planned
	Bytes int64 // their Parquet bytes (a full scan reads all of each)

	Plan  time.Duration // manifest list and manifest reads
	Total time.Duration // plan + Parquet GETs + decode + checksum
	// Verify is the part of Total spent in the checksum.
	Verify time.Duration

	Sum Checksum
}

// Scan reads every row of tbl's current snapshot back to Arrow and
// checksums it. concurrency ≤ 0 leaves iceberg-go's default (GOMAXPROCS).
func Scan(ctx context.Context, tbl *table.Table, concurrency int) (res ScanResult, err error) {
	t0 := time.Now()
	var opts []table.ScanOption
	if concurrency > 0 {
		opts = append(opts, table.WithMaxConcurrency(concurrency))
	}
	scan := tbl.Scan(opts...)
	defer func() {
		if cerr := scan.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close scan: %w", cerr))
		}
	}()
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		return res, fmt.Errorf("plan scan: %w", err)
	}
	res.Plan = time.Since(t0)
	res.Files = len(tasks)
	for _, t := range tasks {
		res.Bytes += t.File.FileSizeBytes()
	}
	_, batches, err := scan.ReadTasks(ctx, tasks)
	if err != nil {
		return res, fmt.Errorf("scan %d files: %w", len(tasks), err)
	}
	for rec, err := range batches {
		if err != nil {
			return res, fmt.Errorf("scan: %w", err)
		}
		v0 := time.Now()
		err = res.Sum.AddBatch(rec)
		res.Verify += time.Since(v0)
		res.Rows += rec.NumRows()
		rec.Release()
		if err != nil {
			return res, err
		}
	}
	res.Total = time.Since(t0)
	return res, nil
}
