package catalog

import "time"

// SetGroupCommit switches c between group commit (on, the default) and the
// serial write path used before it (off), for A/B benchmarks. Call it before
// the first write.
func SetGroupCommit(c *Catalog, on bool) { c.serial = !on }

// WriteBatches returns how many batches the group committer committed and
// how many writes they held.
func WriteBatches(c *Catalog) (batches, writes uint64) {
	return c.gc.batches.Load(), c.gc.ops.Load()
}

// Checkpoints returns how many checkpoints the commit log made and the
// time their bbolt commits took.
func Checkpoints(c *Catalog) (n uint64, took time.Duration) {
	return c.checkpoints.Load(), time.Duration(c.checkpointNS.Load())
}
