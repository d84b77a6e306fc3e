package analysis

import (
	"fmt"
	"path"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// The writes table (layout=writes): the embedded catalog's durable writes
// against the file-system floor measured in the same run, per flush mode
// and thread level.
//
//	<!-- katbench:table writes-quiet layout=writes -->
//	<!-- katbench:table writes-neighbour layout=writes quiet=writes-quiet -->
//
// Rows, in the run's order, are the scenarios both the catalog (catalog=, default embedded) and
// the floor (floor=, default fs-floor) measured, narrowed by
// scenarios=GLOB,… (default create_table.flush.*,commit_table.flush.*).
// The ratio is catalog ÷ floor ops/s, the median of the per-round ratios
// with their range. With quiet=LABEL the table also gives each p99 as a
// multiple of the same cell's p99 in that label's run (two runs: one
// merged ratio, no spread), and the neighbour's mean write rate.

// writesTable renders the layout=writes table of run.
func writesTable(b Block, run []Line, src Sources) (string, error) {
	catalog, floor := attrOr(b, "catalog", "embedded"), attrOr(b, "floor", "fs-floor")
	globs := strings.Split(attrOr(b, "scenarios", "create_table.flush.*,commit_table.flush.*"), ",")
	g := newWritesGrid(run, catalog, floor, globs)
	if len(g.scens) == 0 {
		return "", fmt.Errorf("%w: no %s line matches %s", ErrNoLines, catalog, strings.Join(globs, ","))
	}

	var quiet map[[2]string]Line
	if q := b.Attrs["quiet"]; q != "" {
		qrun, _, err := SelectLabel(src.History, q, src.Labels, src.LabelsName)
		if err != nil {
			return "", fmt.Errorf("quiet=%s: %w", q, err)
		}
		quiet = map[[2]string]Line{}
		for _, l := range qrun {
			quiet[[2]string{l.Target, l.Scenario}] = l
		}
	}

	var sb strings.Builder
	sb.WriteString("| scenario | flush | catalog ops/s | floor ops/s | catalog ÷ floor | catalog p99 µs | floor p99 µs | batch catalog / floor |")
	sep := "|---|---|---|---|---|---|---|---|"
	if quiet != nil {
		sb.WriteString(" catalog p99 ÷ quiet | floor p99 ÷ quiet | neighbour MiB/s |")
		sep += "---|---|---|"
	}
	sb.WriteString("\n" + sep + "\n")
	for _, s := range g.scens {
		c := g.cells[[2]string{catalog, s}]
		f, okF := g.cells[[2]string{floor, s}]
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s | %s / %s |", s, paramText(c.Params["flush"]),
			cellText(c, true, OpsSec, false), cellText(f, okF, OpsSec, false),
			ratioText(map[[2]string]Line{{catalog, s}: c, {floor, s}: f}, catalog, floor, rowSpec{s, OpsSec}),
			cellText(c, true, P99, false), cellText(f, okF, P99, false),
			paramText(c.Params["commit_batch_mean"]), paramText(f.Params["commit_batch_mean"]))
		if quiet != nil {
			fmt.Fprintf(&sb, " %s | %s | %s |", p99Multiple(c, quiet[[2]string{catalog, s}]),
				p99Multiple(f, quiet[[2]string{floor, s}]), neighbourRate(c))
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\n")
	sb.WriteString(scalingTable(g))
	return sb.String(), nil
}

// scalingTable gives, per scenario stem (a mode's create or commit), the
// catalog's and the floor's ops/s at its highest thread levels over its
// lowest, round by round.
func scalingTable(g *writesGrid) string {
	var sb strings.Builder
	sb.WriteString("| scaling | catalog | floor |\n|---|---|---|\n")
	rows := 0
	for _, stem := range g.stems {
		var ts []int
		for _, t := range g.threads {
			if _, ok := g.byLevel[stem][t]; ok {
				ts = append(ts, t)
			}
		}
		if len(ts) < 2 {
			continue
		}
		lo := g.byLevel[stem][ts[0]]
		for _, t := range ts[1:] {
			hi := g.byLevel[stem][t]
			r := rowSpec{hi, OpsSec}
			fl, okLo := g.cells[[2]string{g.floor, lo}]
			fh, okHi := g.cells[[2]string{g.floor, hi}]
			floorText := "—"
			if okLo && okHi {
				floorText = ratioText(map[[2]string]Line{{"lo", hi}: fl, {"hi", hi}: fh}, "hi", "lo", r)
			}
			cl, ch := g.cells[[2]string{g.catalog, lo}], g.cells[[2]string{g.catalog, hi}]
			fmt.Fprintf(&sb, "| %s t%d/t%d | %s | %s |\n", stem, t, ts[0],
				ratioText(map[[2]string]Line{{"lo", hi}: cl, {"hi", hi}: ch}, "hi", "lo", r), floorText)
			rows++
		}
	}
	if rows == 0 {
		return ""
	}
	return sb.String()
}

// p99Multiple is l's p99 as a multiple of the same cell's p99 in another
// run; "—" when either is missing.
func p99Multiple(l, base Line) string {
	v, ok := P99.Value(l)
	q, okQ := P99.Value(base)
	if !ok || !okQ || q == 0 {
		return "—"
	}
	return results.FormatRatio(v / q)
}

// neighbourRate is the mean write rate of the run's neighbour up to l.
func neighbourRate(l Line) string {
	m, ok := l.Measure("background_io_mib_s")
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.0f", m.Value)
}

// paramText formats a describing param for a cell ("—" when absent).
func paramText(v any) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case float64:
		return fmt.Sprintf("%.3g", x)
	default:
		return fmt.Sprint(x)
	}
}

func attrOr(b Block, k, def string) string {
	if v := b.Attrs[k]; v != "" {
		return v
	}
	return def
}

func matchAny(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(strings.TrimSpace(g), s); ok {
			return true
		}
	}
	return false
}

func init() {
	RegisterLayout(Layout{Name: "writes", Doc: "the catalog against its file-system floor per flush mode and thread count", Attrs: []string{"catalog", "floor", "scenarios", "quiet"},
		Render: func(b Block, run []Line, _ RunInfo, src Sources) (string, error) { return writesTable(b, run, src) }})
}
