package listing

import (
	"fmt"
	"strings"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
)

// ReadmeSections are the generated sections of the README and docs (see
// analysis.ReadmeOptions.Sections), by name: what `katbench list` prints,
// as markdown, so the docs cannot drift from the registries.
func ReadmeSections() map[string]string {
	var c strings.Builder
	c.WriteString("| competitor | arguments | what it is |\n|---|---|---|\n")
	var names []string
	for _, f := range competitors.All() {
		fmt.Fprintf(&c, "| `%s` | %s | %s |\n", f.Name, mdCode(f.Usage), mdCell(f.Description))
		names = append(names, "`"+f.Name+"`")
	}
	// The README names them on one line, so a new competitor is one file
	// and no README row; the table with what each is lives in the docs.
	n := strings.Join(names, " · ") + "\n"
	var s strings.Builder
	s.WriteString("| scenario | kind | threads | better | what it does |\n|---|---|---|---|---|\n")
	type row struct {
		name, kind, metric, better, doc string
		threads                         []string
	}
	var rows []*row
	byStem := map[string]*row{}
	var durability []string
	durSeen := map[string]bool{}
	for _, sc := range scenarios.Plan(scenarios.DefaultThreads) {
		// A levelled scenario is one row: its stem with the thread levels.
		stem, level := sc.Name, ""
		if t := fmt.Sprintf(".t%d", sc.Threads); strings.HasSuffix(sc.Name, t) && scenarios.LevelName(strings.TrimSuffix(sc.Name, t), sc.Threads) == sc.Name {
			stem, level = strings.TrimSuffix(sc.Name, t), fmt.Sprint(sc.Threads)
		}
		if sc.Kind == bench.KindDurability {
			// The durability sweep is one row; its scenarios by stem.
			if level != "" {
				stem += ".tN"
			}
			if !durSeen[stem] {
				durSeen[stem] = true
				durability = append(durability, "`"+stem+"`")
			}
			continue
		}
		if r, ok := byStem[stem]; ok && level != "" {
			r.threads = append(r.threads, level)
			continue
		}
		r := &row{name: sc.Name, kind: string(sc.Kind), better: string(sc.Metric.Better()), doc: sc.Doc}
		if level != "" {
			r.name = stem
			r.threads = []string{level}
		} else {
			r.threads = []string{fmt.Sprint(sc.Threads)}
		}
		byStem[stem] = r
		rows = append(rows, r)
	}
	for _, r := range rows {
		name := "`" + r.name + "`"
		if len(r.threads) > 1 {
			name = "`" + r.name + ".tN`"
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", name, r.kind, strings.Join(r.threads, ", "), r.better, mdCell(r.doc))
	}
	if len(durability) > 0 {
		fmt.Fprintf(&s, "| the durability sweep | durability | 1 or N | | each on a fresh competitor opened in that mode (competitors with durability modes): %s |\n", strings.Join(durability, ", "))
	}
	// The README's short form: one row per kind, the scenarios by name.
	var g strings.Builder
	g.WriteString("| kind | scenarios ([all, with what each does](docs/scenarios.md)) |\n|---|---|\n")
	var kinds []string
	byKind := map[string][]string{}
	for _, r := range rows {
		name := r.name
		if len(r.threads) > 1 {
			name += ".tN"
		}
		if _, ok := byKind[r.kind]; !ok {
			kinds = append(kinds, r.kind)
		}
		byKind[r.kind] = append(byKind[r.kind], "`"+name+"`")
	}
	for _, k := range kinds {
		fmt.Fprintf(&g, "| %s | %s |\n", k, strings.Join(byKind[k], " "))
	}
	if len(durability) > 0 {
		fmt.Fprintf(&g, "| durability | %s |\n", strings.Join(durability, " "))
	}
	return map[string]string{"competitors": c.String(), "competitor-names": n, "scenarios": s.String(), "scenario-kinds": g.String()}
}

// mdCell makes s safe inside a markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mdCode is s as inline code, or nothing when s is empty.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "`" + mdCell(s) + "`"
}
