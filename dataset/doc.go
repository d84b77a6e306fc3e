// Package dataset builds what a catalog benchmark measures on, in the
// competitor's own catalog, through iceberg-go's catalog.Catalog: the
// namespace tree and its tables ([Shape], [Build], [Dataset.Drop]), the
// growth between a sweep's sizes ([SweepShape], [Dataset.Grow],
// [Dataset.GrowBulk]), the user's existing tables of a read-only run
// ([Existing]) and tables that carry N real snapshots of history
// ([History], [Dataset.HistoryLevel]), built by commits or by
// registering generated metadata.
//
// It builds and drops; it never measures. Package scenarios decides when
// a dataset is built and runs the scenarios on it. A new dataset shape,
// a new kind of table history or a new way of creating tables in bulk
// goes here; a new operation to measure on them goes in scenarios.
//
// dataset may import iceberg-go, competitors (for the optional
// abilities it uses: bulk creation, transient errors, revalidation) and
// bench (progress); never scenarios, workload or cmd.
package dataset
