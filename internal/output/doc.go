// Package output is where a benchmark command's results and progress go:
// the --format rule (auto, jsonl, table), the sink that writes result lines
// to stdout and a history file and prints the table at the end, and the
// progress reporter (bars on a terminal, plain lines elsewhere) that a run
// hands its long tasks to. Nothing here measures; it only shows.
package output
