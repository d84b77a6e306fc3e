package bench

// Progress receives a run's progress: done of total, for what (a dataset's
// setup, the measurements of a run). The command that runs a bench draws
// it. It may be called from several goroutines at once (a dataset's
// setup reports from its workers), so it must be safe for concurrent use.
type Progress func(what string, done, total int)

// OverallTask is the progress task of the whole run: measurements done of
// those planned (one per scenario, target and round).
const OverallTask = "all measurements"

// Step reports done of total under the task what to p (and nothing when
// p is nil): the one progress report of every benchmark's measurements
// and of a dataset's setup, drawn by the command that runs it.
func Step(p Progress, what string, done, total int) {
	if p != nil {
		p(what, done, total)
	}
}
