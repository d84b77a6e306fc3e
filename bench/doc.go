// Package bench is katbench's measuring engine, shared by every kind of
// benchmark: catalog scenarios (package scenarios), the S3 micro-benchmark
// (scenarios/s3bench) and the data plane (scenarios/dataplane).
//
// It owns:
//   - the one measuring loop: a [Cell] per thing measured, run by
//     [RunCells] over lanes (targets, transports) and rounds, interleaved
//     by [Interleave] (A B C, C B A, …) so drift hits every lane alike;
//   - progress ([Progress], [Step], [OverallTask]);
//   - the scenario descriptor ([Scenario]: name, [Kind], metric, the
//     [Dimension]s its [Level]s vary along, its [Requirement]s) and the
//     stamp it puts on every line ([Stamp]);
//   - the storage benches' scenarios ([RegisterBench], [BenchScenarios])
//     kept in internal/registry's generic by-name Registry, as every registry is;
//   - the --scenario glob rule ([Selector], [Select]) and errors of bad
//     options ([OptionError], [ErrSettings]: exit 2 in cmd).
//
// What a scenario does — a catalog operation on a competitor, an S3
// request on a transport — lives with its bench, never here. So bench may
// import only the standard library, HdrHistogram and katbench's light
// result types (internal/results, internal/pacer): a micro-benchmark built
// on it links no catalog, database or RPC stack. TestImportsStayLight
// checks that with `go list -deps`.
package bench
