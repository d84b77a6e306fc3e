package competitors

import (
	"fmt"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// Long is the long help of the competitor's own command (`katbench NAME`):
// what it measures, its arguments, what it reads from the environment and
// which shared flags its help leaves out because they do not apply.
func (f Factory) Long() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run the shared scenarios on %s", f.Description)
	if f.Peer != "" {
		fmt.Fprintf(&b, ", with %s beside it for comparison (--peer '' for none)", f.Peer)
	}
	b.WriteString(", and print one JSON line per (target, scenario), or a table on a terminal.\n")
	if strings.Contains(f.Usage, "WAREHOUSE") {
		b.WriteString("\nURL is the server's Iceberg REST base URL; WAREHOUSE is the warehouse the server knows " +
			"(Nessie: a warehouse of its config; Polaris: the catalog name), not --warehouse, which is the embedded catalog's storage.\n")
	}
	if f.Env != "" {
		fmt.Fprintf(&b, "\nEnvironment: %s.\n", f.Env)
	}
	if hidden := f.UnusedFlags(); len(hidden) > 0 {
		fmt.Fprintf(&b, "\nNot shown, because they do not apply here: --%s.\n", strings.Join(hidden, ", --"))
	}
	return b.String()
}

// UnusedFlags are the shared flags the competitor ignores: the embedded
// catalog's durability and storage for a remote server, client properties
// for an in-process catalog.
func (f Factory) UnusedFlags() []string {
	var out []string
	if !f.Durability {
		out = append(out, "durability")
	}
	if !f.Storage {
		out = append(out, "warehouse", "transport", "s3-endpoint")
	}
	if !f.Props {
		out = append(out, "prop")
	}
	return out
}

// ParseTarget reads one command-line target, `name` or
// `name=URL[@WAREHOUSE]`, into the competitor's name and arguments.
func ParseTarget(s string) (name string, args []string) {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return s, nil
	}
	if i := strings.LastIndex(val, "@"); i > 0 && !strings.Contains(val[i:], "/") {
		return name, []string{val[:i], val[i+1:]}
	}
	return name, []string{val}
}

// ParseProps reads repeated k=v client properties (--prop). The error
// names the bad entry with any secret in it redacted.
func ParseProps(kvs []string) (map[string]string, error) {
	props := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want key=value", results.RedactProp(kv))
		}
		props[k] = v
	}
	return props, nil
}
