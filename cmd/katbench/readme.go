package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/scenarios"
)

func init() {
	var (
		files   []string
		history string
		labels  string
		check   bool
	)
	cmd := &cobra.Command{
		Use:   "readme",
		Short: "Regenerate the result tables of README.md and docs/results.md from labelled runs in the history",
		Long: `readme rewrites every block between
  <!-- katbench:table NAME ... -->  and  <!-- /katbench:table -->
from the newest run recorded with --label NAME in the history file (or the
run id docs/labels.tsv gives NAME, for runs recorded before lines carried
labels), and every <!-- katbench:generated competitors|scenarios --> section
from the registries. Each table states its run, label, command, host, date,
commit and whether the tree was clean. With --check nothing is written:
exit 1 names the stale blocks (make check runs this). Bad markers, unknown
labels or runs exit 2.`,
		Example: `  katbench readme                                   # README.md, docs/results.md, docs/scenarios.md, docs/workloads.md
  katbench readme --file docs/results.md
  katbench readme --check                           # what make check runs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := analysis.Load(history)
			if err != nil {
				return usageError{err}
			}
			lab, err := analysis.ReadLabels(labels)
			if err != nil {
				return usageError{err}
			}
			for name, id := range lab {
				// A label file naming no run of the history is a typo that
				// would otherwise only show when a table uses it.
				if _, err := analysis.SelectRef(h, id); err != nil {
					return usagef("%s: label %s: %v", labels, name, err)
				}
			}
			src := analysis.Sources{History: h, HistoryName: history, Labels: lab, LabelsName: labels,
				Sections: readmeSections()}
			stderr := cmd.ErrOrStderr()
			var stale []error
			for _, file := range files {
				text, err := os.ReadFile(file)
				if err != nil {
					return usagef("read %s: %v", file, err)
				}
				if check {
					err := analysis.CheckReadme(text, src)
					if errors.Is(err, analysis.ErrStale) {
						stale = append(stale, fmt.Errorf("%s: %w", file, err))
						continue
					}
					if err != nil {
						return usageError{fmt.Errorf("%s: %w", file, err)}
					}
					fmt.Fprintf(stderr, "%s: generated blocks match %s and the registries\n", file, history)
					continue
				}
				folded, blocks, err := analysis.FoldReadme(text, src)
				if err != nil {
					return usageError{fmt.Errorf("%s: %w", file, err)}
				}
				if string(folded) == string(text) {
					fmt.Fprintf(stderr, "%s: %d blocks already up to date\n", file, len(blocks))
					continue
				}
				if err := writeFileAtomic(file, folded); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote %s: %d blocks regenerated from %s\n", file, len(blocks), history)
			}
			return errors.Join(stale...)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&files, "file", []string{"README.md", "docs/results.md", "docs/scenarios.md", "docs/workloads.md"}, "a file whose blocks to regenerate (repeatable)")
	fl.StringVar(&history, "history", "bench_history.jsonl", "history file holding the labelled runs")
	fl.StringVar(&labels, "labels", "docs/labels.tsv", "LABEL<TAB>RUN_ID lines naming runs recorded before lines carried labels")
	fl.BoolVar(&check, "check", false, "change nothing; exit 1 when a block differs from the history or the registries")
	rootCmd.AddCommand(cmd)
}

// readmeSections are the generated sections of the README: what
// `katbench list` prints, as markdown, so the README cannot drift from
// the registries.
func readmeSections() map[string]string {
	var c strings.Builder
	c.WriteString("| competitor | arguments | what it is |\n|---|---|---|\n")
	for _, f := range competitors.All() {
		fmt.Fprintf(&c, "| `%s` | %s | %s |\n", f.Name, mdCode(f.Usage), mdCell(f.Description))
	}
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
		if sc.Kind == scenarios.KindDurability {
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
	return map[string]string{"competitors": c.String(), "scenarios": s.String(), "scenario-kinds": g.String()}
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
