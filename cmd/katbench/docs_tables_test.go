package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestDocsTablesAreGenerated: on the result pages every table row that
// holds a number sits inside a generated block, so a number shown in a
// table is one `katbench readme --check` compares with the history.
func TestDocsTablesAreGenerated(t *testing.T) {
	for _, name := range []string{"docs/results.md", "docs/transport.md", "docs/verify.md", "containers/k8s/README.md"} {
		checkTablesGenerated(t, name, readRepoFile(t, name))
	}
}

var digit = regexp.MustCompile(`[0-9]`)

// checkTablesGenerated fails for every table row of text that holds a
// digit outside a generated block (a result typed by hand), and when text
// has no generated result table at all.
func checkTablesGenerated(t *testing.T, name, text string) {
	t.Helper()
	inBlock, tables := false, 0
	for i, l := range strings.Split(text, "\n") {
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "<!-- katbench:table "):
			inBlock = true
			tables++
		case strings.HasPrefix(s, "<!-- katbench:generated "):
			inBlock = true
		case s == "<!-- /katbench:table -->" || s == "<!-- /katbench:generated -->":
			inBlock = false
		case !inBlock && strings.HasPrefix(s, "|") && digit.MatchString(s):
			t.Errorf("%s:%d: a table row with a number outside a generated block: %s", name, i+1, l)
		}
	}
	if tables == 0 {
		t.Errorf("%s has no generated result table", name)
	}
}
