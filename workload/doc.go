// Package workload describes traffic like a platform's, as values: a
// [Mix] of weighted operations (the registered mixes, [ParseMix] for
// --mix), the [Keys] distribution that picks each operation's table
// ([ParseKeys], [KeySpace]), the latency objective a step must meet
// ([SLO], [ParseSLO]) and the [Capacity] search that steps an open-loop
// rate until the objective breaks ([CapacitySearch]). A [Workload] is a
// mix run: mix, keys, seed and arrivals.
//
// It describes and decides; it never measures. Package scenarios runs a
// Workload on competitors (each operation of [MixOps] is implemented
// there) and feeds a CapacitySearch the steps it measured. A new mix, key
// distribution or objective goes here; a new operation a mix can weigh
// is named here ([LookupOp]) and implemented in scenarios.
//
// So workload may import only the standard library and katbench's light
// result types (internal/results, internal/pacer): no catalog, competitor
// or scenario. TestImportsStayLight checks that.
package workload
