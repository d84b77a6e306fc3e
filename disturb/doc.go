// Package disturb makes the load a benchmark runs beside, on purpose: a
// neighbour writing a large file to the run's file system without
// syncing ([StartNeighbour], [WithNeighbour], flags --background-io and
// --background-io-rate), and CPU-bound busy loops ([StartBusyLoad]).
// A disturbance is started by cmd before a run, says on every line what
// it did ([Neighbour.Sink]) and is stopped when the run ends.
//
// A new kind of background load goes here. Nothing here measures or
// knows a catalog: disturb may import only the standard library, pflag
// and katbench's light packages (bench for its settings error,
// internal/results, internal/usage). TestImportsStayLight checks that.
package disturb
