package main

import (
	"bytes"
	"strings"
	"testing"
)

// stream is a shortened real `go test -json` run: one package passing with
// a skipped subtest, one failing.
const stream = `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"a","Test":"TestOK"}
{"Action":"run","Package":"a","Test":"TestS/sub"}
{"Action":"output","Package":"a","Test":"TestS/sub","Output":"=== RUN   TestS/sub\n"}
{"Action":"output","Package":"a","Test":"TestS/sub","Output":"    s_test.go:9: versitygw not installed: exec: not found\n"}
{"Action":"output","Package":"a","Test":"TestS/sub","Output":"--- SKIP: TestS/sub (0.00s)\n"}
{"Action":"skip","Package":"a","Test":"TestS/sub"}
{"Action":"output","Package":"a","Output":"PASS\n"}
{"Action":"output","Package":"a","Output":"ok  \ta\t0.01s\n"}
{"Action":"pass","Package":"a"}
not json: copied through
{"Action":"run","Package":"b","Test":"TestBad"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"    b_test.go:3: got 1, want 2\n"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"b","Test":"TestBad"}
{"Action":"output","Package":"b","Output":"FAIL\n"}
{"Action":"output","Package":"b","Output":"FAIL\tb\t0.02s\n"}
{"Action":"fail","Package":"b"}
`

func TestSummary(t *testing.T) {
	var out bytes.Buffer
	s := newSummary(&out)
	if err := s.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	s.writeSkips()
	got := out.String()
	for _, want := range []string{
		"ok  \ta\t0.01s\n",
		"not json: copied through\n",
		"    b_test.go:3: got 1, want 2\n--- FAIL: TestBad (0.00s)\n",
		"FAIL\tb\t0.02s\n",
		"SKIPPED: 1 test(s) did not run:\n  SKIP a TestS/sub: s_test.go:9: versitygw not installed: exec: not found\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, noise := range []string{"=== RUN", "--- PASS", "PASS\n\n"} {
		if strings.Contains(got, noise) {
			t.Errorf("output has %q:\n%s", noise, got)
		}
	}
	if !s.failed {
		t.Error("a failing package was not noticed")
	}
}

func FuzzSummary(f *testing.F) {
	f.Add([]byte(stream))
	f.Add([]byte(`{"Action":"skip"}` + "\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newSummary(&bytes.Buffer{})
		_ = s.read(bytes.NewReader(b))
		s.writeSkips()
	})
}

// A package that times out: go test puts the panic in the output of the
// test that was running, which never ends.
func TestSummaryUnfinished(t *testing.T) {
	const timedOut = `{"Action":"run","Package":"c","Test":"TestSlow"}
{"Action":"output","Package":"c","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}
{"Action":"output","Package":"c","Test":"TestSlow","Output":"panic: test timed out after 45m0s\n"}
{"Action":"output","Package":"c","Test":"TestSlow","Output":"\trunning tests:\n"}
{"Action":"output","Package":"c","Output":"FAIL\tc\t2700.1s\n"}
{"Action":"fail","Package":"c"}
`
	var out bytes.Buffer
	s := newSummary(&out)
	if err := s.read(strings.NewReader(timedOut)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	want := "--- UNFINISHED: c TestSlow (still running when the package failed; last 2 lines)\npanic: test timed out after 45m0s\n\trunning tests:\n"
	if !strings.Contains(got, want) || !s.failed {
		t.Errorf("failed %v, output lacks %q:\n%s", s.failed, want, got)
	}
	if strings.Contains(got, "=== RUN") {
		t.Errorf("output has go test's frames:\n%s", got)
	}
}
