// Package scenarios holds katbench's catalog scenarios and the runner
// that drives every competitor through them identically. A scenario knows a
// competitor only through iceberg-go's catalog.Catalog and the optional
// capabilities in package competitors; it never asks who it is driving.
//
// A scenario is a registered value, like a competitor: its name, its kind,
// the metric that decides which side is better, what it needs from a
// competitor and how it runs. Adding one is one file with an init function
// calling [Register] (builtin_*.go, discovery.go, views.go, writes.go,
// floor.go, …); the runner and package results never read meaning back
// out of a name.
//
// It owns:
//   - the scenarios and their operations (ops.go) and measuring loops
//     (measure.go, openloop.go);
//   - the [Runner]: targets, setup, rounds interleaved through bench's
//     RunCells, one line per (target, scenario), cleanup; the growth
//     sweep (sweep.go), history levels as scenarios (history_plan.go),
//     server cost (servercost.go), live metrics (live.go), the start
//     barrier of distributed runs (startgate.go);
//   - running a workload.Workload on competitors: the mix operations
//     (mixops.go), closed and open loop (mixrun.go), and the capacity
//     search's steps (capacityrun.go);
//   - a run's [Settings] (flags and environment) turned into [Options];
//   - the [Command] of `katbench run`, capacity and every competitor's own
//     command: its flags and its run through internal/lifecycle (cmd only
//     wires it).
//
// What it runs on lives elsewhere: the dataset and table history in
// package dataset, the mixes, keys, objectives and capacity search in
// package workload, background load in package disturb, the measuring
// engine in package bench. scenarios imports those, competitors and
// internal packages; only cmd and tests import scenarios. The storage
// benches (scenarios/s3bench, scenarios/dataplane) share bench, not this
// package.
package scenarios
