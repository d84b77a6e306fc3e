package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The README is the front door: these tests keep it short and keep its
// map of the code, its command list and the dependency list in
// docs/setup.md from drifting away from the tree. Its result numbers come
// from generated blocks, which `katbench readme --check` (make check)
// compares with the history and the registries.

const repoRoot = "../.."

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the text under the markdown heading (any level) up to
// the next heading of the same or a higher level.
func section(t *testing.T, text, heading string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	level := func(l string) int {
		n := len(l) - len(strings.TrimLeft(l, "#"))
		if n == 0 || !strings.HasPrefix(l[n:], " ") {
			return 0
		}
		return n
	}
	for i, l := range lines {
		lv := level(l)
		if lv == 0 || strings.TrimSpace(l[lv:]) != heading {
			continue
		}
		var out []string
		for _, m := range lines[i+1:] {
			if ml := level(m); ml > 0 && ml <= lv {
				break
			}
			out = append(out, m)
		}
		return strings.Join(out, "\n")
	}
	t.Fatalf("no heading %q", heading)
	return ""
}

func TestReadmeFrontDoor(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	lines := strings.Split(strings.TrimSuffix(readme, "\n"), "\n")
	if len(lines) > 300 {
		t.Errorf("README.md has %d lines; at most 300 (move detail to docs/)", len(lines))
	}
	first := strings.Join(lines[:min(30, len(lines))], "\n")
	for _, cmd := range []string{"go run ./cmd/katbench embedded --quick", "make test"} {
		if !strings.Contains(first, cmd) {
			t.Errorf("the first 30 lines of README.md lack the setup command %q", cmd)
		}
	}
	checkTablesGenerated(t, "README.md", readme)
}

// TestReadmeNamesEveryPackage: every directory holding Go files appears,
// in backquotes, in "Reading the source".
func TestReadmeNamesEveryPackage(t *testing.T) {
	src := section(t, readRepoFile(t, "README.md"), "Reading the source")
	var dirs []string
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(repoRoot, filepath.Dir(p))
			if err != nil {
				return err
			}
			if rel != "." && (len(dirs) == 0 || dirs[len(dirs)-1] != rel) {
				dirs = append(dirs, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found only %d package directories: %v", len(dirs), dirs)
	}
	for _, d := range dirs {
		if !strings.Contains(src, "`"+d+"`") && !strings.Contains(src, "`"+d+"/`") {
			t.Errorf("README.md's \"Reading the source\" does not name the package directory `%s`", d)
		}
	}
}

// TestDocsNameEveryDependency: every direct requirement of go.mod is in
// the dependency list of docs/setup.md.
func TestDocsNameEveryDependency(t *testing.T) {
	list := section(t, readRepoFile(t, "docs/setup.md"), "Dependencies")
	sc := bufio.NewScanner(strings.NewReader(readRepoFile(t, "go.mod")))
	inRequire, n := false, 0
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "require (":
			inRequire = true
			continue
		case l == ")":
			inRequire = false
			continue
		}
		var mod string
		if inRequire {
			mod = l
		} else if rest, ok := strings.CutPrefix(l, "require "); ok {
			mod = rest
		}
		if mod == "" || strings.Contains(mod, "// indirect") || strings.HasPrefix(mod, "//") {
			continue
		}
		path := strings.Fields(mod)[0]
		n++
		if !strings.Contains(list, "`"+path+"`") {
			t.Errorf("docs/setup.md's dependency list does not name go.mod's direct requirement `%s`", path)
		}
	}
	if n == 0 {
		t.Fatal("no direct requirement found in go.mod")
	}
}

// TestReadmeNamesEveryCommand: every command of the binary appears as
// `katbench PATH` in the README's "Commands" section.
func TestReadmeNamesEveryCommand(t *testing.T) {
	cmds := section(t, readRepoFile(t, "README.md"), "Commands")
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			path := strings.TrimPrefix(sub.CommandPath(), rootCmd.Name()+" ")
			n++
			if !regexp.MustCompile(`katbench ` + regexp.QuoteMeta(path) + `\b`).MatchString(cmds) {
				t.Errorf("README.md's \"Commands\" section does not show `katbench %s`", path)
			}
			walk(sub)
		}
	}
	walk(rootCmd)
	if n < 10 {
		t.Fatalf("only %d commands found", n)
	}
}
