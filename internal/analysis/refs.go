package analysis

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nordisk/katbench/internal/usage"
)

// LoadAll reads the lines of every file in paths, in order, or of stdin
// when paths is empty (named "stdin" in errors).
func LoadAll(paths []string, stdin io.Reader) ([]Line, error) {
	if len(paths) == 0 {
		return Read(stdin, "stdin")
	}
	var out []Line
	for _, p := range paths {
		ls, err := Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// LoadRefs reads one side of a comparison: a comma-separated list of refs,
// each a JSONL file when one exists at that path, else a run id or commit
// prefix looked up in the history file (see SelectRef).
func LoadRefs(refs, history string) ([]Line, error) {
	var out []Line
	n := 0
	var h []Line // the history, read once when a ref needs it
	for _, ref := range strings.Split(refs, ",") {
		if ref = strings.TrimSpace(ref); ref == "" {
			continue
		}
		n++
		if st, err := os.Stat(ref); err == nil && !st.IsDir() {
			ls, err := Load(ref)
			if err != nil {
				return nil, err
			}
			out = append(out, ls...)
			continue
		}
		if history == "" {
			return nil, fmt.Errorf("%s: no such file and no --history to look it up in", ref)
		}
		if h == nil {
			var err error
			if h, err = Load(history); err != nil {
				return nil, fmt.Errorf("%s is not a file; looking it up in the history: %w", ref, err)
			}
		}
		ls, err := SelectRef(h, ref)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	if n == 0 {
		return nil, fmt.Errorf("%q names no file, run or commit", refs)
	}
	return out, nil
}

// LoadAB reads a 'katbench ab' output file and splits it into its old and
// new sides (SplitAB).
func LoadAB(path string) (old, new []Line, err error) {
	lines, err := Load(path)
	if err != nil {
		return nil, nil, err
	}
	if old, new, err = SplitAB(lines); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return old, new, nil
}

// ErrInput is wrapped by the errors of the files and refs a reading
// command was given (LoadSides, MergeFiles, ReportFiles): the user's input.
var ErrInput = errors.New("bad input")

// LoadSides reads compare's two sides: both from the `katbench ab`
// session file abFile when it is given, else refs[0] (OLD) and refs[1]
// (NEW), each looked up in history (LoadRefs). Every error is ErrInput
// and names the side.
func LoadSides(refs []string, history, abFile string) (old, nw []Line, err error) {
	if abFile != "" {
		if old, nw, err = LoadAB(abFile); err != nil {
			return nil, nil, usage.Errorf(ErrInput, "--ab: %v", err)
		}
		return old, nw, nil
	}
	if len(refs) != 2 {
		return nil, nil, usage.Errorf(ErrInput, "want OLD and NEW, got %d refs", len(refs))
	}
	if old, err = LoadRefs(refs[0], history); err != nil {
		return nil, nil, usage.Errorf(ErrInput, "OLD: %v", err)
	}
	if nw, err = LoadRefs(refs[1], history); err != nil {
		return nil, nil, usage.Errorf(ErrInput, "NEW: %v", err)
	}
	return old, nw, nil
}
