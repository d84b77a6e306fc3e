// Package registry is the one generic registry of katbench: competitors,
// catalog scenarios, data-plane scenarios, S3 operations, transports and
// README layouts each keep theirs in a Registry, filled by the init
// functions of the files that add them. It imports the standard library
// only, so any package may use it.
package registry
