package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestDocsTablesAreGenerated: on the result pages every table row that
// holds a number sits inside a generated block, so a number shown in a
// table is one `katbench readme --check` compares with the history. A
// row with a digit outside a block is a result typed by hand.
func TestDocsTablesAreGenerated(t *testing.T) {
	digit := regexp.MustCompile(`[0-9]`)
	for _, name := range []string{"docs/results.md", "docs/transport.md"} {
		inBlock, blocks := false, 0
		for i, l := range strings.Split(readRepoFile(t, name), "\n") {
			s := strings.TrimSpace(l)
			switch {
			case strings.HasPrefix(s, "<!-- katbench:table ") || strings.HasPrefix(s, "<!-- katbench:generated "):
				inBlock = true
				blocks++
			case s == "<!-- /katbench:table -->" || s == "<!-- /katbench:generated -->":
				inBlock = false
			case !inBlock && strings.HasPrefix(s, "|") && digit.MatchString(s):
				t.Errorf("%s:%d: a table row with a number outside a generated block: %s", name, i+1, l)
			}
		}
		if blocks == 0 {
			t.Errorf("%s has no generated block", name)
		}
	}
}
