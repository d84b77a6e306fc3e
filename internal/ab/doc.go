// Package ab runs two builds of katbench alternately, each run in a fresh
// process, and collects their result lines for a comparison: the way
// benchstat is meant to be fed ("run each benchmark many times,
// interleaved"), packaged for a catalog benchmark.
//
// The order is ABBA ABBA …: old, new, new, old, old, new, … so a drift of
// the machine over the session (a neighbour starting a job, a cache
// warming) falls on both sides alike. Before each run the package waits
// for the machine's load (the one-minute load average of /proc/loadavg)
// to drop to a limit, for a bounded time, and records the load before and
// after every run on its lines, with whether it stayed within the limit.
// A pause (the cool-down) separates runs.
//
// A side is a binary, or a git revision that Build compiles from a clean
// checkout in a temporary directory (a local clone sharing the
// repository's objects, so neither the caller's working tree nor its
// list of worktrees is touched); a dirty tree is never built.
//
// Nothing here is safe for concurrent use: one goroutine drives a session.
package ab
