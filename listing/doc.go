// Package listing renders katbench's registries for people: what
// `katbench list` prints ([WriteList]: competitors, catalog scenarios,
// the storage benches' scenarios, mixes and their operations) and the
// same as the README's and docs' generated sections ([ReadmeSections],
// folded in by `katbench readme`), so the docs cannot drift from the
// code.
//
// It only reads registries: competitors, scenarios (catalog scenarios),
// bench (the storage benches' scenarios) and workload (mixes). A new
// column or section of the listing goes here; a new registered thing
// needs nothing here. Nothing imports listing but cmd.
package listing
