// Package analysis reads katbench result lines back: it decodes history
// files of any schema version (line.go, history.go), matches cells across
// runs (cell.go), gates regressions with benchstat-style statistics
// (compare.go), merges lines exactly by adding their HdrHistograms
// (merge.go), renders an offline HTML report (report.go, chart.go) and
// folds labelled runs into the result tables of README.md and docs/ (readme.go).
//
// Everything here is pure: functions take lines and return values, so a
// test drives them without a process. Nothing in this package is safe for
// concurrent mutation; values it returns are not shared with the caller's
// inputs unless said.
package analysis
