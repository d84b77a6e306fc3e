package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		pass   bool
		want   []string
		absent []string
	}{
		{
			name: "pass with a skip",
			in: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: skipping: RustFS unavailable: no binary\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"pass","Package":"p","Elapsed":1.5}
`,
			pass:   true,
			want:   []string{"ok    p 1.5s", "SKIP p TestB: b_test.go:9: skipping: RustFS unavailable: no binary", "1 passed, 1 skipped, 0 failed"},
			absent: []string{"=== RUN"},
		},
		{
			name: "a failed test shows its output",
			in: `{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestC"}
{"Action":"fail","Package":"p","Elapsed":2}
`,
			want: []string{"--- FAIL: p TestC", "got 1, want 2", "FAIL  p 2.0s", "0 passed, 0 skipped, 1 failed; packages failed: 1"},
		},
		{
			name: "build failure before any event",
			in: `# p
p/x.go:1:1: syntax error
{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}
{"Action":"fail","Package":"p"}
`,
			want: []string{"syntax error", "FAIL  p", "[build failed]"},
		},
		{name: "no events", in: "", want: []string{"no test events"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if got := run(strings.NewReader(tc.in), &out); got != tc.pass {
				t.Errorf("run = %v, want %v\n%s", got, tc.pass, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out.String(), a) {
					t.Errorf("output has %q:\n%s", a, out.String())
				}
			}
		})
	}
}
