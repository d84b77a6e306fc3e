package main

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestDocsTablesAreGenerated: in README.md, every docs/*.md and every
// README.md under containers/, a table row that shows a measurement sits
// inside a generated block, so every figure a table shows is one
// `katbench readme --check` compares with the history. Tables of
// settings, limits, versions and names stay hand-written (see measuredRow
// for what counts as a measurement).
func TestDocsTablesAreGenerated(t *testing.T) {
	t.Run("rule", checkMeasuredRowRule)
	names := docPages(t)
	for _, name := range names {
		checkTablesGenerated(t, name, readRepoFile(t, name))
	}
	// A page with generated blocks is one `katbench readme` (and so
	// --check, in make check) rewrites: otherwise its blocks could go stale
	// unnoticed.
	readme, _, err := rootCmd.Find([]string{"readme"})
	if err != nil {
		t.Fatal(err)
	}
	files := readme.Flags().Lookup("file")
	if files == nil {
		t.Fatal("katbench readme has no --file flag")
	}
	defaults := strings.Split(strings.Trim(files.DefValue, "[]"), ",")
	for _, name := range names {
		if hasGeneratedBlock(readRepoFile(t, name)) && !slices.Contains(defaults, name) {
			t.Errorf("%s has generated blocks but is not among `katbench readme`'s default --file list %v", name, defaults)
		}
	}
	// The result pages exist to show generated tables: one without any
	// lost its results.
	for _, name := range []string{"docs/results.md", "docs/transport.md", "docs/verify.md", "containers/k8s/README.md"} {
		if !hasGeneratedTable(readRepoFile(t, name)) {
			t.Errorf("%s has no generated result table", name)
		}
	}
}

// docPages lists README.md, docs/*.md and containers/**/README.md,
// relative to the repository root.
func docPages(t *testing.T) []string {
	t.Helper()
	names := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		names = append(names, filepath.ToSlash(strings.TrimPrefix(d, repoRoot+string(filepath.Separator))))
	}
	err = filepath.WalkDir(filepath.Join(repoRoot, "containers"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "README.md" {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names[1:])
	if len(docs) == 0 {
		t.Fatal("no docs/*.md found: the test reads the wrong directory")
	}
	return names
}

var (
	// codeSpan is a literal the reader types or reads in code: a flag,
	// a default, a scenario name, a command. Figures in it are not
	// results.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// version is a release number (Nessie 0.99.0, v1.8.0, 127.0.0.1).
	version = regexp.MustCompile(`\bv?[0-9]+(\.[0-9]+){2,}\b`)
	// unitFigure is a number with a measurement's unit: a time, a rate,
	// a ratio, a share or a size ("1.8 ms", "5,007 ops/s", "0.87×",
	// "76 %", "+293 MiB"). A number inside a word (t32, SigV4, S3) is
	// not one.
	unitFigure = regexp.MustCompile(`(^|[^\w.])[+≈~]?[0-9][0-9,.]*\s*[kM]?\s*(ns|µs|us|ms|s|min|h|/s|×|x|%|B|KB|KiB|MB|MiB|GB|GiB)([^\w]|$)`)
	// numericCell is a cell of bare figures ("| 1,532 |", "| 301 / 303 |",
	// "| 0 → 0 |", "| 117.6 [103–157] |", "| about 2.6 |", "| 93 of 102 |"):
	// a count or value of a run.
	numericCell = regexp.MustCompile(`^[*+≈~]*(about\s+)?[0-9][0-9,.\s·/→–\-\[\]()*k]*(\s+of\s+[0-9][0-9,]*)?\**$`)
)

// measuredRow says whether a markdown table row shows a measurement: a
// figure with a unit, or a cell holding nothing but figures, once code
// spans and version numbers are set aside. A settings table (a flag and
// its default in code spans, a limit in a code span, a version) passes;
// to show a limit in words, put its value in a code span, as the code
// defines it.
func measuredRow(row string) bool {
	s := version.ReplaceAllString(codeSpan.ReplaceAllString(row, ""), "")
	if unitFigure.MatchString(s) {
		return true
	}
	for _, c := range strings.Split(strings.Trim(s, "| "), "|") {
		if numericCell.MatchString(strings.TrimSpace(c)) {
			return true
		}
	}
	return false
}

// checkTablesGenerated fails for every table row of text that shows a
// measurement outside a generated block (a result typed by hand).
func checkTablesGenerated(t *testing.T, name, text string) {
	t.Helper()
	inBlock := false
	for i, l := range strings.Split(text, "\n") {
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "<!-- katbench:table ") || strings.HasPrefix(s, "<!-- katbench:generated "):
			inBlock = true
		case s == "<!-- /katbench:table -->" || s == "<!-- /katbench:generated -->":
			inBlock = false
		case !inBlock && strings.HasPrefix(s, "|") && measuredRow(s):
			t.Errorf("%s:%d: a measured table row outside a generated block (generate it with a katbench:table block, or say the finding in words with the command that reproduces it): %s", name, i+1, l)
		}
	}
}

// hasGeneratedBlock says whether text has a generated table or section.
func hasGeneratedBlock(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		s := strings.TrimSpace(l)
		if strings.HasPrefix(s, "<!-- katbench:table ") || strings.HasPrefix(s, "<!-- katbench:generated ") {
			return true
		}
	}
	return false
}

func hasGeneratedTable(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "<!-- katbench:table ") {
			return true
		}
	}
	return false
}

// checkMeasuredRowRule pins the rule down on rows of both kinds.
func checkMeasuredRowRule(t *testing.T) {
	for _, c := range []struct {
		row  string
		want bool
	}{
		{"| load_table | 0.153 (0.0992–0.171) | 1.81e+03 |", true},
		{"| create t1 | 24 % / 17 % |", true},
		{"| WriteFile 4 KiB | 341,140 | 203,957 | 0.60× |", true},
		{"| 32 concurrent 12 MiB commit bodies, no token | 401 | +0 MiB |", true},
		{"| `RESTCompatibilityKitCatalogTests` | 93 of 102 | skipped |", true},
		{"| `futex` | about 2.6 | about 17.5 (hand-offs between tokio workers) |", true},
		{"| A/A rest | **0 of 14** |", true},
		{"| 3,000/s, rest | `time.Sleep` pacer |", true},
		{"| `nessie` | Project Nessie 0.99.0 | in memory | `containers/nessie_up.sh` |", false},
		{"| `read-heavy` | `load_table=80,table_exists=10,commit_table=10` | uniform | reads and updates |", false},
		{"| `POST /v1/oauth/tokens` | `16 KiB` |", false},
		{"| `rest-sigv4` | `rest` with AWS SigV4 on every request | bbolt file |", false},
		{"| `--port 9200` | on 127.0.0.1 |", false},
		{"| t32 | create before |", false},
	} {
		if got := measuredRow(c.row); got != c.want {
			t.Errorf("measuredRow(%q) = %v, want %v", c.row, got, c.want)
		}
	}
}
