package competitors

import (
	"slices"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		name string
		args []string
	}{
		{"embedded", "embedded", nil},
		{"rest=http://127.0.0.1:8181", "rest", []string{"http://127.0.0.1:8181"}},
		{"nessie=http://localhost:19120/iceberg@warehouse", "nessie", []string{"http://localhost:19120/iceberg", "warehouse"}},
		{"rest=http://u@host/path", "rest", []string{"http://u@host/path"}}, // an @ before a / is the URL's
	} {
		name, args := ParseTarget(tc.in)
		if name != tc.name || !slices.Equal(args, tc.args) {
			t.Errorf("ParseTarget(%q) = %q %q, want %q %q", tc.in, name, args, tc.name, tc.args)
		}
	}
}

func TestLongNamesWhatDoesNotApply(t *testing.T) {
	remote := Factory{Description: "a server", Usage: "URL WAREHOUSE", Env: "X_URL", Props: true}
	if got := remote.UnusedFlags(); !slices.Equal(got, []string{"durability", "warehouse", "transport", "s3-endpoint"}) {
		t.Errorf("UnusedFlags = %q", got)
	}
	long := remote.Long()
	for _, want := range []string{"a server", "WAREHOUSE is the warehouse", "Environment: X_URL.", "--durability, --warehouse"} {
		if !strings.Contains(long, want) {
			t.Errorf("Long() lacks %q:\n%s", want, long)
		}
	}
	local := Factory{Description: "in-process", Durability: true, Storage: true, Peer: "fs-floor"}
	if got := local.UnusedFlags(); !slices.Equal(got, []string{"prop"}) {
		t.Errorf("UnusedFlags = %q, want [prop]", got)
	}
	if long := local.Long(); !strings.Contains(long, "with fs-floor beside it") || strings.Contains(long, "Environment") {
		t.Errorf("Long() = %s", long)
	}
}
