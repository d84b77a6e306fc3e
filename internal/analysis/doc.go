// Package analysis reads katbench result lines back: it decodes history
// files of any schema version into the results.Record their writers wrote
// (results.Decode; line.go, history.go), matches cells across
// runs (cell.go), gates regressions with benchstat-style statistics
// (compare.go, shift.go), merges lines exactly by adding their
// HdrHistograms (merge.go), renders an offline HTML report (report.go,
// chart.go) and folds labelled runs into the result tables of README.md
// and docs/ (readme.go, readme_files.go). It also loads the sides of a
// comparison (refs.go) and checks compare's settings (settings.go).
//
// # The comparison's rules
//
// The sample is a run. A side of a comparison is a set of independent
// runs (separate processes), its lines grouped by run_id; each run gives
// one value per cell and metric, the median of its rounds, because rounds
// inside one process share a heap, caches and a moment and so understate
// the run-to-run spread. The U test (golang.org/x/perf/benchmath,
// AssumeNothing) runs over those values; a side with fewer runs than the
// test can ever decide on at the level (4 at 0.05) is "need 4 runs". The
// change is the Hodges–Lehmann estimate (median of the pairwise ratios
// new/old) with its distribution-free interval from the same U
// distribution, so a finite interval exists from 4 runs a side on. Where a
// control was measured, each run is divided by its own control p50.
//
// Many cells: the rows of one comparison are corrected together with
// Benjamini–Hochberg (false-discovery rate α = 0.05), not Holm. When the
// builds do not differ (the A/A case a gate must stay quiet in) every
// hypothesis is null, and then BH bounds the chance of any false alarm
// at α just as Holm does; when a build is slower it is usually slower in
// many cells at once, and BH then lets each of k moving cells pass at
// k·α/m instead of Holm's α/m, so a real regression is found with fewer
// runs. The price is that among the cells flagged, up to α of them may be
// false — acceptable for a gate whose flags a human reads.
//
// Thresholds: a significant slowdown is a regression beyond 10 % for
// deterministic counters (allocations, bytes, system calls, instructions,
// cycles per operation) and 25 % for wall-clock metrics; a counter must
// also move by more than its floor (half an allocation, 16 B, 0.1 system
// calls per operation). With a margin, an interval wholly inside ±margin
// is "same within ±margin": no regression of that size, claimed positively.
//
// Everything here is pure: functions take lines and return values, so a
// test drives them without a process. Nothing in this package is safe for
// concurrent mutation; values it returns are not shared with the caller's
// inputs unless said.
package analysis
