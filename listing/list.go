package listing

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/workload"
)

// WriteList writes what `katbench list` prints: the competitors, the
// scenarios, the mixes and the operations a mix can weigh, as aligned
// columns.
func WriteList(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "COMPETITOR\tARGS\tSTORE\tDESCRIPTION")
	for _, f := range competitors.All() {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Name, f.Usage, f.Store, f.Description)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "SCENARIO\tKIND\tTHREADS\tMETRIC\tBETTER\tDESCRIPTION")
	for _, s := range scenarios.Plan(scenarios.DefaultThreads) {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\n", s.Name, s.Kind, s.Threads, s.Metric, s.Metric.Better(), s.Doc)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "SCENARIO\tCOMMAND\tDIMENSIONS\tNEEDS\tDESCRIPTION")
	for _, s := range bench.BenchScenarios(bench.BenchRun) {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Bench, bench.DimsText(s), bench.NeedsText(s), s.Doc)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "MIX\tKEYS\tWEIGHTS\tDESCRIPTION")
	for _, m := range workload.Mixes() {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.Name, m.Keys, m, m.Doc)
	}
	fmt.Fprintf(w, "(operations a --mix can weigh: %s)\n", strings.Join(workload.MixOps(), ", "))
	return w.Flush()
}
