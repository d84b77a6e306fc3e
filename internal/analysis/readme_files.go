package analysis

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nordisk/katbench/internal/results"
)

// ErrReadmeInput wraps the errors of UpdateReadmes that are bad input
// (an unreadable file, a bad marker, an unknown label or run), as opposed
// to stale blocks (ErrStale) and failed writes.
var ErrReadmeInput = errors.New("bad readme input")

// inputError is a bad input of UpdateReadmes: its message is the cause's,
// and it is ErrReadmeInput as well as the cause.
type inputError struct{ err error }

func (e inputError) Error() string   { return e.err.Error() }
func (e inputError) Unwrap() []error { return []error{ErrReadmeInput, e.err} }

// ReadmeOptions say which files UpdateReadmes regenerates from what.
type ReadmeOptions struct {
	Files    []string          // files whose generated blocks to regenerate
	History  string            // the history file holding the labelled runs
	Labels   string            // LABEL<TAB>RUN_ID file (see ReadLabels)
	Sections map[string]string // bodies of the generated sections, by name
	// Check changes nothing: a file whose blocks differ is an ErrStale.
	Check bool
	Log   io.Writer // one line per file said what was done; nil for none
}

// UpdateReadmes regenerates (or, with Check, checks) every generated block
// of o.Files from the history, the labels and the sections. Files are
// written atomically; a file already up to date is not touched. It returns
// the first bad input (wrapping ErrReadmeInput), else every stale file
// (wrapping ErrStale) or write failure.
func UpdateReadmes(o ReadmeOptions) error {
	bad := func(err error) error { return inputError{err} }
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	h, err := Load(o.History)
	if err != nil {
		return bad(err)
	}
	lab, err := ReadLabels(o.Labels)
	if err != nil {
		return bad(err)
	}
	for name, id := range lab {
		// A label file naming no run of the history is a typo that would
		// otherwise only show when a table uses it.
		if _, err := SelectRef(h, id); err != nil {
			return bad(fmt.Errorf("%s: label %s: %w", o.Labels, name, err))
		}
	}
	src := Sources{History: h, HistoryName: o.History, Labels: lab, LabelsName: o.Labels, Sections: o.Sections}
	var stale []error
	for _, file := range o.Files {
		text, err := os.ReadFile(file)
		if err != nil {
			return bad(fmt.Errorf("read %s: %w", file, err))
		}
		if o.Check {
			err := CheckReadme(text, src)
			if errors.Is(err, ErrStale) {
				stale = append(stale, fmt.Errorf("%s: %w", file, err))
				continue
			}
			if err != nil {
				return bad(fmt.Errorf("%s: %w", file, err))
			}
			logf("%s: generated blocks match %s and the registries", file, o.History)
			continue
		}
		folded, blocks, err := FoldReadme(text, src)
		if err != nil {
			return bad(fmt.Errorf("%s: %w", file, err))
		}
		if string(folded) == string(text) {
			logf("%s: %d blocks already up to date", file, len(blocks))
			continue
		}
		if err := results.WriteFileAtomic(file, folded); err != nil {
			return err
		}
		logf("wrote %s: %d blocks regenerated from %s", file, len(blocks), o.History)
	}
	return errors.Join(stale...)
}
