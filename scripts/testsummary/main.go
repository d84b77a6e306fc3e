// Command testsummary runs `go test -json` with its arguments and prints
// what a plain `go test` prints — a line per package ("ok", "FAIL", "?"),
// the output of failing tests, build errors — and then the list of
// skipped tests with their reasons, so a developer sees what did not run.
// It exits with go test's status.
//
//	go run ./scripts/testsummary -count=1 -timeout 45m ./...
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

func main() {
	cmd := exec.Command("go", append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	s := newSummary(os.Stdout)
	if err := s.read(out); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
	}
	err = cmd.Wait()
	s.writeSkips()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	case s.failed:
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

// skip is one skipped test and why.
type skip struct {
	pkg, test, reason string
}

// summary turns the event stream into plain go test output. Not safe for
// concurrent use.
type summary struct {
	w      io.Writer
	output map[[2]string][]string // (package, test) → output lines so far
	skips  []skip
	failed bool
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, output: map[[2]string][]string{}}
}

// read consumes the stream; lines that are not events are copied through.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(s.w, string(line))
			continue
		}
		s.handle(e)
	}
	return sc.Err()
}

func (s *summary) handle(e event) {
	key := [2]string{e.Package, e.Test}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.w, e.Output)
	case e.Action == "build-fail":
		s.failed = true
	case e.Test == "":
		if e.Action == "output" && e.Output != "PASS\n" && !isFrame(e.Output) {
			fmt.Fprint(s.w, e.Output)
		}
		if e.Action == "fail" {
			s.failed = true
			s.flushUnfinished(e.Package)
		}
	case e.Action == "output":
		s.output[key] = append(s.output[key], e.Output)
	case e.Action == "fail":
		s.failed = true
		for _, l := range s.output[key] {
			if !isFrame(l) {
				fmt.Fprint(s.w, l)
			}
		}
		delete(s.output, key)
	case e.Action == "skip":
		s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, reason: reason(s.output[key])})
		delete(s.output, key)
	case e.Action == "pass":
		delete(s.output, key)
	}
}

// unfinishedTail is how many of its last output lines an unfinished test
// shows.
const unfinishedTail = 60

// flushUnfinished prints the output of pkg's tests that never ended: the
// package failed around them (a timeout's panic, a crash in another
// goroutine), and their output, where go test put the panic, says why.
func (s *summary) flushUnfinished(pkg string) {
	var keys [][2]string
	for k := range s.output {
		if k[0] == pkg {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][1] < keys[j][1] })
	for _, k := range keys {
		var lines []string
		for _, l := range s.output[k] {
			if !isFrame(l) {
				lines = append(lines, l)
			}
		}
		if n := len(lines); n > unfinishedTail {
			lines = lines[n-unfinishedTail:]
		}
		fmt.Fprintf(s.w, "--- UNFINISHED: %s %s (still running when the package failed; last %d lines)\n", pkg, k[1], len(lines))
		for _, l := range lines {
			fmt.Fprint(s.w, l)
		}
		delete(s.output, k)
	}
}

// isFrame reports whether l is go test's own progress line (=== RUN, …).
func isFrame(l string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// reason is a skipped test's output without go test's frames: what it
// logged and the message it skipped with.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || isFrame(l) || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " | ")
}

// writeSkips prints every skipped test, by package, with its reason.
func (s *summary) writeSkips() {
	sort.SliceStable(s.skips, func(i, j int) bool { return s.skips[i].pkg < s.skips[j].pkg })
	if len(s.skips) == 0 {
		fmt.Fprintln(s.w, "SKIPPED: none")
		return
	}
	fmt.Fprintf(s.w, "SKIPPED: %d test(s) did not run:\n", len(s.skips))
	for _, k := range s.skips {
		fmt.Fprintf(s.w, "  SKIP %s %s: %s\n", k.pkg, k.test, k.reason)
	}
}
