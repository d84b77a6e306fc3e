package analysis

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// oldLine is a line of aa_pair.jsonl as a build before redaction would
// have written it: secrets in the command, params and first error.
func oldLine(t *testing.T, command any) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/aa_pair.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(bytes.SplitN(b, []byte("\n"), 2)[0], &m); err != nil {
		t.Fatal(err)
	}
	m["command"] = command
	p := m["params"].(map[string]any)
	p["prop.header.Authorization"] = "Bearer XTOKEN"
	p["prop.s3.secret-access-key"] = "YSECRET"
	p["url"] = "http://u:UPASS@127.0.0.1:1/"
	m["first_error"] = "GET http://u:UPASS@h/x: 403"
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOldLinesAreRedactedOnRead: a line with secrets in it, in either form
// of command, reaches no reader (params, command, the raw fields a merge
// writes, the HTML report) with them.
func TestOldLinesAreRedactedOnRead(t *testing.T) {
	for _, command := range []any{
		[]any{"katbench", "rest", "--secret-key", "BSECRET", "--prop", "'credential=a:BSECRET'"},
		"katbench rest --secret-key BSECRET --prop 'credential=a:BSECRET'",
	} {
		b := oldLine(t, command)
		l, err := ParseLine(b)
		if err != nil {
			t.Fatal(err)
		}
		if want := "katbench rest --secret-key REDACTED --prop credential=REDACTED"; l.Command != want {
			t.Errorf("command %q, want %q", l.Command, want)
		}
		if l.Params["prop.header.Authorization"] != "REDACTED" || l.Params["prop.s3.secret-access-key"] != "REDACTED" ||
			l.Params["url"] != "http://u:REDACTED@127.0.0.1:1/" || l.Params["tables"] != 200.0 {
			t.Errorf("params %v", l.Params)
		}
		var raw bytes.Buffer
		for k, v := range l.Raw() {
			raw.WriteString(k + "=" + string(v) + "\n")
		}
		ms, err := Merge([]Line{l, l}, MergeOptions{})
		if err != nil || len(ms) != 1 {
			t.Fatalf("merge: %v (%d lines)", err, len(ms))
		}
		var page bytes.Buffer
		if err := WriteReport(&page, []Line{l}, ReportOptions{Now: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
		for what, out := range map[string]string{"raw": raw.String(), "merged": string(ms[0].JSON), "report": page.String()} {
			for _, s := range []string{"XTOKEN", "YSECRET", "BSECRET", "UPASS"} {
				if strings.Contains(out, s) {
					t.Errorf("%s holds %s", what, s)
				}
			}
		}
		if !strings.Contains(string(ms[0].JSON), `"prop.s3.secret-access-key":"REDACTED"`) {
			t.Errorf("merged line lost the redacted param: %s", ms[0].JSON)
		}
	}
}

// TestReportRedactsLinesNotRead: lines handed to the report directly,
// not through ParseLine, are redacted too.
func TestReportRedactsLinesNotRead(t *testing.T) {
	l, err := ParseLine(oldLine(t, "katbench"))
	if err != nil {
		t.Fatal(err)
	}
	l.Command = "katbench transport --secret-key BSECRET"
	l.Params = map[string]any{"prop.token": "XTOKEN"}
	var page bytes.Buffer
	if err := WriteReport(&page, []Line{l}, ReportOptions{Now: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	if s := page.String(); strings.Contains(s, "BSECRET") || strings.Contains(s, "XTOKEN") || !strings.Contains(s, "--secret-key REDACTED") {
		t.Error("the report shows a secret of a line it was handed")
	}
}
