package scenarios

import (
	"slices"
	"strings"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
)

// ReadOnlyWhy is the skip reason of a scenario a read-only run does not
// run.
const ReadOnlyWhy = "--read-only: this scenario writes to the catalog or needs the namespaces and views katbench makes; a read-only run measures only reads of the tables it is given"

// parseReadOnly reads --read-only's comma-separated tables, each
// NAMESPACE.TABLE with '.' between levels (the last part is the table).
func parseReadOnly(s string) ([]table.Identifier, error) {
	var out []table.Identifier
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id := table.Identifier(strings.Split(part, "."))
		if len(id) < 2 {
			return nil, settingsf("--read-only %q: want NAMESPACE.TABLE (levels separated by '.'), comma-separated", part)
		}
		if err := catalog.ValidateIdentifier(id); err != nil {
			return nil, settingsf("--read-only %q: %v", part, err)
		}
		if !slices.ContainsFunc(out, func(o table.Identifier) bool { return slices.Equal(o, id) }) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return nil, settingsf("--read-only %q: name at least one existing table, NAMESPACE.TABLE", s)
	}
	return out, nil
}

// checkReadOnly refuses, in a read-only run, a selection that names a
// scenario that writes: the user asked for writes the run must not do.
func checkReadOnly(o Options) error {
	if len(o.ReadOnly) == 0 || len(o.Select) == 0 {
		return nil
	}
	var writes []string
	for _, sc := range Plan(o.Threads) {
		if o.Select.Selects(sc.Name) && sc.Writes {
			writes = append(writes, sc.Name)
		}
	}
	if len(writes) > 0 {
		return settingsf("--read-only refuses write scenarios: --scenario selects %s, which create or commit tables", strings.Join(writes, ", "))
	}
	return nil
}
