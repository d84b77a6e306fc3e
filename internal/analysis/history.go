package analysis

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// ErrNoLines is returned when a file, a run id or a commit selects nothing.
var ErrNoLines = errors.New("no result lines")

// ErrAmbiguous is returned when a reference names more than one run and
// the caller asked for one.
var ErrAmbiguous = errors.New("ambiguous reference")

// Read decodes every line of r. Blank lines are ignored; any other line
// that does not decode fails the whole read, naming source and line
// number, so a damaged history is never half-read.
func Read(r io.Reader, source string) ([]Line, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []Line
	memo := commandMemo{}
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			l, perr := parseLine(b, memo)
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", source, n, perr)
			}
			l.Source, l.LineNo = source, n
			out = append(out, l)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", source, err)
		}
	}
}

// Load reads a JSONL file ("-" is not special here: the CLI handles stdin).
func Load(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// RunInfo is what every line of one run shares.
type RunInfo struct {
	ID    string
	First Line // the run's first line: host, commit, command, ts
	// Label is the run's label: that of its first line that has one
	// (skipped lines of older builds were written without it).
	Label   string
	Lines   int
	Targets []string // in first-seen order
}

// Runs lists the runs in lines in first-seen order.
func Runs(lines []Line) []RunInfo {
	idx := map[string]int{}
	var out []RunInfo
	for _, l := range lines {
		i, ok := idx[l.RunID]
		if !ok {
			i = len(out)
			idx[l.RunID] = i
			out = append(out, RunInfo{ID: l.RunID, First: l})
		}
		ri := &out[i]
		ri.Lines++
		if ri.Label == "" {
			ri.Label = l.Label
		}
		if len(ri.First.Command) == 0 && len(l.Command) > 0 {
			// A skipped line of an older build carries no command: the
			// run's provenance comes from its first line that does.
			ri.First = l
		}
		if !contains(ri.Targets, l.Target) {
			ri.Targets = append(ri.Targets, l.Target)
		}
	}
	return out
}

// SelectRef returns the lines of history whose run id or commit SHA starts
// with ref (at least 4 characters). A ref that matches run ids and commits
// of different runs is ambiguous only if the two sets differ.
func SelectRef(history []Line, ref string) ([]Line, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if len(ref) < 4 {
		return nil, fmt.Errorf("%w: reference %q is shorter than 4 characters", ErrNoLines, ref)
	}
	byRun, byCommit := map[string]bool{}, map[string]bool{}
	for _, l := range history {
		if strings.HasPrefix(strings.ToLower(l.RunID), ref) {
			byRun[l.RunID] = true
		}
		if strings.HasPrefix(strings.ToLower(l.Commit.SHA), ref) {
			byCommit[l.RunID] = true
		}
	}
	runs := byRun
	if len(runs) == 0 {
		runs = byCommit
	} else if len(byCommit) > 0 && !sameKeys(byRun, byCommit) {
		return nil, fmt.Errorf("%w: %q is a prefix of run ids %s and of commits of runs %s",
			ErrAmbiguous, ref, keys(byRun), keys(byCommit))
	}
	if len(byRun) > 1 {
		return nil, fmt.Errorf("%w: %q matches runs %s", ErrAmbiguous, ref, keys(byRun))
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no run id or commit starts with %q", ErrNoLines, ref)
	}
	var out []Line
	for _, l := range history {
		if runs[l.RunID] {
			out = append(out, l)
		}
	}
	return out, nil
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// sortByStart orders runs by their first line's time, oldest first: a
// merged history need not be in time order.
func sortByStart(runs []RunInfo) {
	slices.SortStableFunc(runs, func(a, b RunInfo) int { return a.First.TS.Compare(b.First.TS) })
}
