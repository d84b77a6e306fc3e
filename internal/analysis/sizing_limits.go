package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// limitP99US is the p99 above which a catalog's answer is too slow for an
// interactive client (a query planner, a notebook): 100 ms.
const limitP99US = 100_000

// limitScenarios are the operations whose p99 the limits table follows.
var limitScenarios = []string{"load_table.latency", "list_tables.latency"}

// limitRows is the sizing finding a platform engineer acts on (rows=limits):
// per target, the smallest size at which each operation's p99 first exceeds
// 100 ms, or "none up to" the largest size measured; and where its setup
// stopped, when a --setup-budget or an error stopped it before the sweep's
// largest size. With pts (rows=readme) each row starts with what a
// deployment of the target needs (deployOf).
func limitRows(targets []string, run []Line, pts map[sizingKey][]sizingPoint) string {
	type cut struct {
		size float64
		p99  float64
	}
	meas := map[sizingKey][]cut{}
	stopped := map[string]string{}
	for _, l := range run {
		size, ok := l.Dims[results.DimTables]
		if !ok {
			continue
		}
		if l.Skipped != "" {
			if strings.HasPrefix(l.Skipped, "setup stopped") {
				stopped[l.Target] = l.Skipped
			}
			continue
		}
		if !l.Measured() || l.P99US == nil {
			continue
		}
		k := sizingKey{l.Target, l.Scenario}
		meas[k] = append(meas[k], cut{size, *l.P99US})
	}
	var sb strings.Builder
	sb.WriteString("| target |")
	if pts != nil {
		sb.WriteString(" per 1,000 load_table/s: cores | per 100k tables: MiB memory | MiB disk |")
	}
	for _, s := range limitScenarios {
		fmt.Fprintf(&sb, " %s p99 over 100 ms |", strings.TrimSuffix(s, ".latency"))
	}
	sb.WriteString(" setup |\n|---|")
	if pts != nil {
		sb.WriteString("---|---|---|")
	}
	for range limitScenarios {
		sb.WriteString("---|")
	}
	sb.WriteString("---|\n")
	for _, t := range targets {
		var cells []string
		any := false
		for _, s := range limitScenarios {
			c := meas[sizingKey{t, s}]
			if len(c) == 0 {
				cells = append(cells, "—")
				continue
			}
			any = true
			sort.Slice(c, func(i, j int) bool { return c[i].size < c[j].size })
			cell := ""
			for _, x := range c {
				if x.p99 > limitP99US {
					cell = fmt.Sprintf("from %s (p99 %s)", results.CountName(int64(x.size)), fmtMicros(x.p99))
					break
				}
			}
			if cell == "" {
				last := c[len(c)-1]
				cell = fmt.Sprintf("none up to %s (p99 %s)", results.CountName(int64(last.size)), fmtMicros(last.p99))
			}
			cells = append(cells, cell)
		}
		if !any {
			continue
		}
		setup := "every size"
		if why := stopped[t]; why != "" {
			setup = why
		}
		if pts != nil {
			d, ok := deployOf(t, pts)
			if !ok {
				d = deployment{"—", "—", "—", "—"}
			}
			cells = append([]string{d.cores, d.mem, d.disk}, cells...)
		}
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", t, strings.Join(cells, " | "), mdEscapePipes(setup))
	}
	if pts != nil {
		sb.WriteString("\n" + deployNote + "\n")
	}
	sb.WriteString("\nThe smallest size at which the operation's p99 first went over 100 ms in this run (one cell per size, so a single slow cell counts), or the largest size measured when it never did. Setup: where a `--setup-budget` or an error stopped the target's dataset short of the sweep's largest size.\n")
	return sb.String()
}

// mdEscapePipes keeps a free-text cell from splitting a markdown row.
func mdEscapePipes(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
