package results

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRedactArgs(t *testing.T) {
	for _, c := range []struct {
		name     string
		in, want []string
	}{
		{"transport keys",
			[]string{"katbench", "transport", "--access-key", "AKID", "--secret-key", "XS", "http://h:9000"},
			[]string{"katbench", "transport", "--access-key", "REDACTED", "--secret-key", "REDACTED", "http://h:9000"}},
		{"equals form", []string{"--secret-key=XS", "--access-key=AK"}, []string{"--secret-key=REDACTED", "--access-key=REDACTED"}},
		{"one dash, value starting with a dash", []string{"-secret-key", "-XS"}, []string{"-secret-key", "REDACTED"}},
		{"credential and token flags", []string{"serve", "rest", "--credential", "a:b", "--token=T"},
			[]string{"serve", "rest", "--credential", "REDACTED", "--token=REDACTED"}},
		{"props",
			[]string{"--prop", "credential=a:BSECRET", "--prop=header.Authorization=Bearer X", "--prop", "s3.secret-access-key=Y",
				"--prop", "s3.session-token=S", "--prop", "s3.access-key-id=A", "--prop", "oauth2-server-uri=http://o/t", "--prop", "token=T"},
			[]string{"--prop", "credential=REDACTED", "--prop=header.Authorization=REDACTED", "--prop", "s3.secret-access-key=REDACTED",
				"--prop", "s3.session-token=REDACTED", "--prop", "s3.access-key-id=REDACTED", "--prop", "oauth2-server-uri=REDACTED", "--prop", "token=REDACTED"}},
		{"plain props stay", []string{"--prop", "warehouse=s3://wh", "--prop", "s3.endpoint=http://h:9000", "--prop", "rest.sigv4-enabled=true"},
			[]string{"--prop", "warehouse=s3://wh", "--prop", "s3.endpoint=http://h:9000", "--prop", "rest.sigv4-enabled=true"}},
		{"malformed props",
			[]string{"--prop", "Bearer X", "--prop", "credential a:b", "--prop", "broken", "--prop=credential", "--prop", "=v", "--prop", "broken:x", "--prop", "s3cr3tT0ken", "--prop", "'x"},
			[]string{"--prop", "Bearer REDACTED", "--prop", "credential REDACTED", "--prop", "broken", "--prop=credential", "--prop", "=REDACTED", "--prop", "broken:REDACTED", "--prop", "REDACTED", "--prop", "REDACTED"}},
		{"shell words",
			[]string{"katbench", "--prop", "'header.Authorization=Bearer X'", "--secret-key", `'it'\''s'`, "--scenario", "'load_table.*'"},
			[]string{"katbench", "--prop", "header.Authorization=REDACTED", "--secret-key", "REDACTED", "--scenario", "'load_table.*'"}},
		{"url password", []string{"rest", "http://u:pw@h:8181/", "--s3-endpoint=https://k:s@h"},
			[]string{"rest", "http://u:REDACTED@h:8181/", "--s3-endpoint=https://k:REDACTED@h"}},
		{"url password quoted", []string{"'http://u:p$w@h'"}, []string{"http://u:REDACTED@h"}},
		{"any flag naming a secret", []string{"--db-password", "pw", "--api-key=k", "--signing-key", "sk"},
			[]string{"--db-password", "REDACTED", "--api-key=REDACTED", "--signing-key", "REDACTED"}},
		{"switch naming a secret", []string{"serve", "rest", "--vend-storage-credentials", "--addr", "127.0.0.1:0"},
			[]string{"serve", "rest", "--vend-storage-credentials", "--addr", "127.0.0.1:0"}},
		{"switch value kept", []string{"--vend-storage-credentials=false"}, []string{"--vend-storage-credentials=false"}},
		{"names that hold no secret", []string{"--keep-alive=false", "--ops", "get", "--scenario", "s3.list.max-keys", "--threads", "1,8"},
			[]string{"--keep-alive=false", "--ops", "get", "--scenario", "s3.list.max-keys", "--threads", "1,8"}},
		{"positional k=v", []string{"data", "token=T"}, []string{"data", "token=REDACTED"}},
		{"secret flag last", []string{"transport", "--secret-key"}, []string{"transport", "--secret-key"}},
		{"empty value", []string{"--secret-key", ""}, []string{"--secret-key", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := RedactArgs(c.in)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("RedactArgs(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if again := RedactArgs(got); !reflect.DeepEqual(again, got) {
				t.Fatalf("not idempotent: %q then %q", got, again)
			}
		})
	}
	if RedactArgs(nil) != nil {
		t.Error("RedactArgs(nil) is not nil")
	}
}

func TestRedactCommand(t *testing.T) {
	for in, want := range map[string]string{
		"katbench embedded --quick":                                    "katbench embedded --quick",
		"katbench rest --prop 'header.Authorization=Bearer X' --quick": "katbench rest --prop header.Authorization=REDACTED --quick",
		`katbench transport --secret-key "a b" --access-key AK`:        "katbench transport --secret-key REDACTED --access-key REDACTED",
		"katbench transport --secret-key 'unbalanced":                  "katbench transport --secret-key REDACTED",
	} {
		if got := RedactCommand(in); got != want {
			t.Errorf("RedactCommand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactText(t *testing.T) {
	for in, want := range map[string]string{
		`grpc: prop credential: bad credential "a:***": want id:secret`: `grpc: prop credential: bad credential "a:***": want id:secret`,
		"--vend-storage-credentials needs an s3:// --warehouse":         "--vend-storage-credentials needs an s3:// --warehouse",
		"get token: oauth2: cannot fetch token: 401 Unauthorized":       "get token: oauth2: cannot fetch token: 401 Unauthorized",
		"request header Authorization: Bearer abc.def":                  "request header Authorization: Bearer REDACTED",
		"dial http://u:pw@h:1/x: connection refused":                    "dial http://u:REDACTED@h:1/x: connection refused",
		"GET http://h:9000/b/k@v1: 404":                                 "GET http://h:9000/b/k@v1: 404",
		`--prop "credential=a:b": rejected`:                             `--prop "credential=REDACTED": rejected`,
		"--secret-key xyz is too short":                                 "--secret-key REDACTED is too short",
		"props s3.secret-access-key=Y, s3.endpoint=http://h":            "props s3.secret-access-key=REDACTED, s3.endpoint=http://h",
		"token:abc":                         "token:REDACTED",
		"list max-keys=3 a basic check":     "list max-keys=3 a basic check",
		"Authorization: Basic dXNlcjpwYXNz": "Authorization: Basic REDACTED",
		"sigv4 enabled=true":                "sigv4 enabled=true",
		"":                                  "",
	} {
		got := RedactText(in)
		if got != want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", in, got, want)
		}
		if again := RedactText(got); again != got {
			t.Errorf("RedactText not idempotent on %q: %q", got, again)
		}
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"credential": true, "token": true, "header.Authorization": true, "header.X-Trace": true,
		"prop.header.Authorization": true, "s3.secret-access-key": true, "s3.session-token": true,
		"s3.access-key-id": true, "rest.sigv4-enabled": true, "oauth2-server-uri": true,
		"--secret-key": true, "access-key": true, "AWS_SECRET_ACCESS_KEY": true, "secretAccessKey": true,
		"db-password": true, "signing-key": true, "prop.credential": true,
		"auth": false, "url": false, "warehouse": false, "keep-alive": false, "max-keys": false,
		"threads": false, "s3.endpoint": false, "prop.s3.region": false, "endpoint": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRedactParams(t *testing.T) {
	in := map[string]any{
		"prop.header.Authorization": "Bearer X", "prop.s3.secret-access-key": "Y", "prop.token": "T",
		"url": "http://u:p@h/", "threads": 4, "vend_storage_credentials": true, "prop.s3.endpoint": "http://h:9000",
		"nested": map[string]any{"session-token": "S", "n": 1.5}, "list": []any{"http://u:p@h", 3},
		"strs": map[string]string{"password": "pw", "user": "me"}, "empty_token": "",
	}
	orig := map[string]any{}
	for k, v := range in {
		orig[k] = v
	}
	want := map[string]any{
		"prop.header.Authorization": Redacted, "prop.s3.secret-access-key": Redacted, "prop.token": Redacted,
		"url": "http://u:REDACTED@h/", "threads": 4, "vend_storage_credentials": true, "prop.s3.endpoint": "http://h:9000",
		"nested": map[string]any{"session-token": Redacted, "n": 1.5}, "list": []any{"http://u:REDACTED@h", 3},
		"strs": map[string]string{"password": Redacted, "user": "me"}, "empty_token": "",
	}
	if got := RedactParams(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("RedactParams\n got %v\nwant %v", got, want)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Fatalf("RedactParams modified its argument: %v", in)
	}
	if RedactParams(nil) != nil {
		t.Error("RedactParams(nil) is not nil")
	}
}

// TestLinesAreRedacted: a line made by a Run, and one whose fields were
// set after it was made, carry no secret in their JSON or the table.
func TestLinesAreRedacted(t *testing.T) {
	run := &Run{ID: "r", Command: []string{"katbench", "rest", "--prop", "'header.Authorization=Bearer XTOKEN'", "--secret-key", "YSECRET"}}
	params := map[string]any{"prop.credential": "a:BSECRET", "tables": 8}
	rec := NewRecorder()
	rec.Record(time.Millisecond)
	lines := []Record{
		run.Result("rest", "s", Closed, 1, rec, time.Second, params),
		run.Skipped("rest", "s", "needs --token ZTOKEN", params),
	}
	late := run.Result("rest", "s", Closed, 1, rec, time.Second, nil)
	late.Params["prop.s3.secret-access-key"] = "WSECRET"
	late.FirstError = "GET http://u:VSECRET@h/x: 403"
	late.Errors = 1
	late.Command = append(late.Command, "--access-key=USECRET")
	lines = append(lines, late)
	var buf bytes.Buffer
	var coll Collector
	sink := Tee{NewJSONL(&buf), &coll}
	for _, l := range lines {
		if err := sink.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	var table bytes.Buffer // the table printed at the end of a run
	if err := WriteTable(&table, coll.Snapshot()); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"XTOKEN", "YSECRET", "BSECRET", "ZTOKEN", "WSECRET", "VSECRET", "USECRET"} {
		if strings.Contains(buf.String(), s) {
			t.Errorf("secret %s in line JSON:\n%s", s, buf.String())
		}
	}
	if !strings.Contains(table.String(), "http://u:REDACTED@h/x: 403") {
		t.Errorf("the table does not show the redacted first error:\n%s", table.String())
	}
	for _, s := range []string{"XTOKEN", "YSECRET", "BSECRET", "ZTOKEN", "WSECRET", "VSECRET", "USECRET"} {
		if strings.Contains(table.String(), s) {
			t.Errorf("secret %s in the table:\n%s", s, table.String())
		}
	}
	var first Record
	if err := json.Unmarshal(bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0], &first); err != nil {
		t.Fatal(err)
	}
	if first.Params["prop.credential"] != Redacted || first.Params["tables"] != 8.0 ||
		strings.Join(first.Command, " ") != "katbench rest --prop header.Authorization=REDACTED --secret-key REDACTED" {
		t.Errorf("line params %v command %q", first.Params, first.Command)
	}
	if params["prop.credential"] != "a:BSECRET" {
		t.Error("making a line modified the caller's params")
	}
}

// FuzzRedact: a value given as a secret (by flag, property or URL
// password) never survives RedactArgs, in raw or shell-quoted words,
// whatever surrounds it; RedactCommand agrees with RedactArgs; RedactText
// and RedactParams never panic, and the redactions are idempotent.
func FuzzRedact(f *testing.F) {
	f.Add("katbench rest --quick", "BSECRET", uint8(2), "--history h.jsonl")
	f.Add("transport", "x y'z", uint8(0), "")
	f.Add("--prop", "-dash", uint8(6), "--prop a=b")
	f.Add("a 'b", "REDACT", uint8(3), "http://u:p@h")
	f.Add("", "pw", uint8(5), "--db-password")
	f.Fuzz(func(t *testing.T, prefix, secret string, form uint8, suffix string) {
		before := strings.Fields(prefix)
		if n := len(before); n > 0 && strings.HasPrefix(before[n-1], "-") {
			before = append(before, "x") // a value for the flag, so it cannot take the secret's flag as its own
		}
		var words []string
		var want string
		switch form % 7 {
		case 0:
			words, want = []string{"--secret-key", secret}, Redacted
		case 1:
			words, want = []string{"--access-key=" + secret}, "--access-key="+Redacted
		case 2:
			words, want = []string{"--prop", "credential=" + secret}, "credential="+Redacted
		case 3:
			words, want = []string{"--prop=header.Authorization=" + secret}, "--prop=header.Authorization="+Redacted
		case 4:
			words, want = []string{"--prop", "s3.session-token=" + secret}, "s3.session-token="+Redacted
		case 5:
			if strings.IndexFunc(secret, func(r rune) bool { return !isAlnum(r) }) >= 0 {
				return // a URL password here is letters and digits
			}
			words, want = []string{"http://user:" + secret + "@host/p"}, "http://user:"+Redacted+"@host/p"
		case 6:
			words, want = []string{"--token", secret}, Redacted
		}
		if secret == "" || secret == "true" || secret == "false" {
			return // nothing to hide: kept as given
		}
		args := append(append(append([]string{"katbench"}, before...), words...), strings.Fields(suffix)...)
		at := 1 + len(before) + len(words) - 1
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = ShellQuote(a)
		}
		for _, in := range [][]string{args, quoted} {
			out := RedactArgs(in)
			if len(out) != len(in) || out[at] != want {
				t.Fatalf("RedactArgs(%q) = %q: word %d is not %q", in, out, at, want)
			}
			if again := RedactArgs(out); !reflect.DeepEqual(again, out) {
				t.Fatalf("RedactArgs not idempotent: %q then %q", out, again)
			}
		}
		joined := strings.Join(quoted, " ")
		if got, want := RedactCommand(joined), strings.Join(RedactArgs(quoted), " "); got != want {
			t.Fatalf("RedactCommand(%q) = %q, RedactArgs gives %q", joined, got, want)
		}
		p := RedactParams(map[string]any{"prop.credential": secret, "prop.header.X": secret, "u": prefix + secret + suffix})
		if p["prop.credential"] != Redacted || p["prop.header.X"] != Redacted {
			t.Fatalf("RedactParams kept a secret: %v", p)
		}
		text := prefix + " " + strings.Join(words, " ") + " " + suffix
		r := RedactText(text)
		if again := RedactText(r); again != r {
			t.Fatalf("RedactText not idempotent: %q → %q → %q", text, r, again)
		}
	})
}
