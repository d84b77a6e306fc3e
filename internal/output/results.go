package output

import (
	"errors"
	"fmt"
	"io"

	"github.com/nordisk/katbench/internal/results"
)

// Results routes result lines: JSONL (or a table at the end) to stdout, a
// copy appended to the history file, and a human table on stderr when
// stderr is a terminal and stdout got JSONL. Its Sink is as safe for
// concurrent use as results.Tee; Close is called once, after the last
// write.
type Results struct {
	format string
	stdout io.Writer
	stderr io.Writer
	coll   results.Collector
	hist   *results.History
	sink   results.Tee
}

// NewResults checks format (CheckFormat; "auto" is resolved against
// stdout, see ResolveFormat) and opens the history file (none when
// history is "").
func NewResults(format, history string, stdout, stderr io.Writer) (*Results, error) {
	if err := CheckFormat(format); err != nil {
		return nil, err
	}
	format = ResolveFormat(format, stdout)
	o := &Results{format: format, stdout: stdout, stderr: stderr}
	o.sink = append(o.sink, &o.coll)
	if format == "jsonl" {
		o.sink = append(o.sink, results.NewJSONL(stdout))
	}
	if history != "" {
		if !results.ThisCommit().Known() {
			// Without a revision the history's tables cannot say what
			// was measured: the usual cause is GOFLAGS=-buildvcs=false
			// and a working directory outside the checkout.
			fmt.Fprintf(stderr, "katbench: warning: this binary records no commit in %s (built without version control information and run outside its git checkout); build it with go build -buildvcs=true, or run it inside the checkout\n", history)
		}
		h, err := results.OpenHistory(history)
		if err != nil {
			return nil, err
		}
		o.hist = h
		o.sink = append(o.sink, h)
	}
	return o, nil
}

// Sink is where the runner writes; label ("" for none) is recorded on
// every line (--label).
func (o *Results) Sink(label string) results.Sink { return results.Labelled(o.sink, label) }

// Close prints the tables and closes the history file.
func (o *Results) Close() error {
	var err error
	recs := o.coll.Snapshot()
	if o.format == "table" {
		err = results.WriteTableWidth(o.stdout, recs, TerminalWidth(o.stdout))
		err = errors.Join(err, results.WriteServerTable(o.stdout, recs))
	} else if IsTerminal(o.stderr) && len(recs) > 0 {
		fmt.Fprintln(o.stderr)
		err = results.WriteTableWidth(o.stderr, recs, TerminalWidth(o.stderr))
		err = errors.Join(err, results.WriteServerTable(o.stderr, recs))
	}
	if o.hist != nil {
		err = errors.Join(err, o.hist.Close())
	}
	return err
}
