package results

import "testing"

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"embedded":             "embedded",
		"--rows=2M":            "--rows=2M",
		"s3://bucket/wh":       "s3://bucket/wh",
		"load_table.*":         "'load_table.*'",
		"a b":                  "'a b'",
		"it's":                 `'it'\''s'`,
		"":                     "''",
		"create_table.t{1,8}":  "'create_table.t{1,8}'",
		"$HOME":                "'$HOME'",
		"127.0.0.1:9000,x@y+z": "127.0.0.1:9000,x@y+z",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
