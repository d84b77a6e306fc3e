package analysis

import (
	"io"
	"testing"
)

// The performance targets of reading results: compare and report over the
// whole committed history under 1 s each (reading the file included).
func BenchmarkCompareHistory(b *testing.B) {
	for b.Loop() {
		lines, err := Load("../../bench_history.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Compare(lines, lines, CompareOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReportHistory(b *testing.B) {
	for b.Loop() {
		lines, err := Load("../../bench_history.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteReport(io.Discard, lines, ReportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
