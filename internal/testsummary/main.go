// Command testsummary reads `go test -json` events on stdin and prints what
// a person needs from a long test run: one line per package, every skipped
// test with the reason it gave, and the full output of every failed test.
// It exits 1 when a test or package failed or no event arrived, so
//
//	go test -json ./... | go run ./internal/testsummary
//
// fails exactly when the tests did (make test uses it).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json output (cmd/test2json documents it).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// summary accumulates events. Not safe for concurrent use.
type summary struct {
	out                 io.Writer
	outputs             map[string][]string // package + test → output lines
	skips, fails        []string
	passed, events      int
	failedPkgs, pkgSkip int
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, outputs: map[string][]string{}}
}

// add folds in one event, printing package results and failures as they end.
func (s *summary) add(e event) {
	s.events++
	key := e.Package + " " + e.Test
	switch e.Action {
	case "output":
		s.outputs[key] = append(s.outputs[key], e.Output)
	case "pass":
		if e.Test == "" {
			fmt.Fprintf(s.out, "ok    %s %.1fs\n", e.Package, e.Elapsed)
		} else {
			s.passed++
		}
		delete(s.outputs, key)
	case "skip":
		if e.Test == "" {
			s.pkgSkip++ // no test files
		} else {
			s.skips = append(s.skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(s.outputs[key])))
		}
		delete(s.outputs, key)
	case "fail":
		if e.Test == "" {
			s.failedPkgs++
			fmt.Fprintf(s.out, "FAIL  %s %.1fs\n", e.Package, e.Elapsed)
			// Build failures and panics outside a test land here.
			if lines := s.outputs[key]; len(lines) > 0 {
				fmt.Fprint(s.out, indent(lines))
			}
		} else {
			s.fails = append(s.fails, e.Package+" "+e.Test)
			fmt.Fprintf(s.out, "--- FAIL: %s %s\n%s", e.Package, e.Test, indent(s.outputs[key]))
		}
		delete(s.outputs, key)
	}
}

// skipReason picks the lines a skipping test logged, without the framework's
// own === and --- lines.
func skipReason(lines []string) string {
	var keep []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		keep = append(keep, t)
	}
	if len(keep) == 0 {
		return "(no reason given)"
	}
	return strings.Join(keep, " ")
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// finish prints the skips and totals and reports whether the run passed.
func (s *summary) finish() bool {
	sort.Strings(s.skips)
	if len(s.skips) > 0 {
		fmt.Fprintf(s.out, "\n%d skipped test(s):\n", len(s.skips))
		for _, l := range s.skips {
			fmt.Fprintf(s.out, "  SKIP %s\n", l)
		}
	}
	fmt.Fprintf(s.out, "\ntests: %d passed, %d skipped, %d failed; packages failed: %d\n",
		s.passed, len(s.skips), len(s.fails), s.failedPkgs)
	if s.events == 0 {
		fmt.Fprintln(s.out, "testsummary: no test events read (did go test start?)")
		return false
	}
	return len(s.fails) == 0 && s.failedPkgs == 0
}

// run reads events from in; lines that are not JSON (go build errors printed
// before test2json starts) are passed through.
func run(in io.Reader, out io.Writer) bool {
	s := newSummary(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		s.add(e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testsummary: read:", err)
		return false
	}
	return s.finish()
}

func main() {
	if !run(os.Stdin, os.Stdout) {
		os.Exit(1)
	}
}
