package output

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Progress reports long work (dataset creation and removal, server
// warm-up) on stderr: progress bars (github.com/vbauerster/mpb) when stderr
// is a terminal that no result line shares, plain lines at every tenth
// otherwise, so logs stay readable. Status lines written to it (it is the
// runner's Log) appear above the bars. Safe for concurrent use.
type Progress struct {
	mu     sync.Mutex
	w      io.Writer
	bars   bool
	p      *mpb.Progress        // created with the first bar; nil after Close
	active map[string]*mpb.Bar  // bars not yet complete, by task
	steps  map[string]int       // plain mode: last tenth printed, by task
	start  map[string]time.Time // when each unfinished task began
	now    func() time.Time
	closed bool
}

// NewProgress reports on w, with bars when bars is true (see UseBars).
func NewProgress(w io.Writer, bars bool) *Progress {
	return &Progress{w: w, bars: bars, active: map[string]*mpb.Bar{}, steps: map[string]int{},
		start: map[string]time.Time{}, now: time.Now}
}

// UseBars decides whether progress may draw bars on stderr: only on a
// terminal, and not while JSONL results stream to that same terminal on
// stdout (redrawn bars would tear the result lines apart).
func UseBars(stderr, stdout io.Writer, format string) bool {
	return TerminalWidth(stderr) > 0 && !(format == "jsonl" && IsTerminal(stdout))
}

// Update reports done of total for the task what. A task is finished when
// done reaches total; reporting it again starts it anew. Update is a
// bench.Progress.
func (p *Progress) Update(what string, done, total int) {
	if total <= 0 {
		return
	}
	done = min(max(done, 0), total)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if _, ok := p.start[what]; !ok {
		p.start[what] = p.now()
	}
	if done == total {
		defer delete(p.start, what)
	}
	if !p.bars {
		p.plainLine(what, done, total)
		return
	}
	b := p.active[what]
	if b == nil {
		if p.p == nil {
			p.p = mpb.New(mpb.WithOutput(p.w), mpb.WithWidth(100))
		}
		// A finished bar gives way to one plain line (below), so the
		// scrollback keeps what was done without stale bars.
		b = p.p.New(int64(total), mpb.BarStyle(), mpb.BarRemoveOnComplete(),
			mpb.PrependDecorators(decor.Name(what, decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Any(p.paceDecor(p.start[what]), decor.WCSyncSpace)))
		p.active[what] = b
	}
	b.SetCurrent(int64(done))
	if done == total {
		delete(p.active, what)
		fmt.Fprintf(p.p, "%s: %d/%d (100%%)\n", what, done, total)
	}
}

// plainLine prints what's progress when it enters a new tenth (and at the
// end). Called with p.mu held.
func (p *Progress) plainLine(what string, done, total int) {
	step := done * 10 / total
	last, seen := p.steps[what]
	if seen && step <= last {
		return
	}
	p.steps[what] = step
	if done == total {
		delete(p.steps, what)
	}
	fmt.Fprintf(p.w, "%s: %d/%d (%d%%%s)\n", what, done, total, done*100/total, p.eta(what, done, total))
}

// eta is ", 12s elapsed, about 1m10s left" (see pace) for plain lines.
// Called with p.mu held.
func (p *Progress) eta(what string, done, total int) string {
	start, ok := p.start[what]
	if !ok || done == total {
		return ""
	}
	if s := pace(p.now().Sub(start), int64(done), int64(total)); s != "" {
		return ", " + s
	}
	return ""
}

// paceDecor draws a bar's pace (see pace) as time goes by, so a bar
// whose count stands still still moves.
func (p *Progress) paceDecor(start time.Time) decor.DecorFunc {
	return func(st decor.Statistics) string {
		if st.Completed || st.Aborted {
			return ""
		}
		return pace(p.now().Sub(start), st.Current, st.Total)
	}
}

// pace is "12s elapsed, about 1m10s left" after took for done of total,
// the time left at the average pace so far; just the elapsed time before
// anything is done, nothing in the first second.
func pace(took time.Duration, done, total int64) string {
	if took < time.Second {
		return ""
	}
	el := took.Round(time.Second).String() + " elapsed"
	if done <= 0 || done >= total {
		return el
	}
	left := time.Duration(float64(took) / float64(done) * float64(total-done))
	return fmt.Sprintf("%s, about %s left", el, left.Round(time.Second))
}

// Write prints status lines: above the bars while there are any.
func (p *Progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.p != nil {
		return p.p.Write(b)
	}
	return p.w.Write(b)
}

// Close ends every bar (an unfinished one is shown as aborted) and waits
// until the bars are drawn for the last time, so nothing written to the
// terminal afterwards (the result table) mixes with them. Later updates are
// ignored; later writes go straight to the output. Idempotent.
func (p *Progress) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for what, b := range p.active {
		b.Abort(false)
		delete(p.active, what)
	}
	if p.p != nil {
		p.p.Wait()
		p.p = nil
	}
}
