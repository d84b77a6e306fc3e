package restserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func mustDo(t *testing.T, want int, method, url, body string) string {
	t.Helper()
	code, b, _ := do(t, method, url, "", body)
	if code != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, code, b, want)
	}
	return b
}

// TestPagination pages through namespaces and tables with pageSize and
// the returned tokens, and checks every item comes exactly once, in order.
func TestPagination(t *testing.T) {
	_, base := startServer(t, newEmbedded(t), Options{})
	var want []string
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		mustDo(t, 200, "POST", base+"/v1/namespaces", `{"namespace":["`+n+`"]}`)
		mustDo(t, 200, "POST", base+"/v1/namespaces/a/tables", `{"name":"t`+n+`","schema":`+okSchema+`}`)
		want = append(want, n)
	}
	var got, gotTables []string
	tok := ""
	for range 10 {
		var resp struct {
			Namespaces [][]string `json:"namespaces"`
			Next       string     `json:"next-page-token"`
		}
		url := base + "/v1/namespaces?pageSize=2"
		if tok != "" {
			url += "&pageToken=" + tok
		}
		if err := json.Unmarshal([]byte(mustDo(t, 200, "GET", url, "")), &resp); err != nil {
			t.Fatal(err)
		}
		if len(resp.Namespaces) > 2 {
			t.Fatalf("page of %d > pageSize 2", len(resp.Namespaces))
		}
		for _, ns := range resp.Namespaces {
			got = append(got, ns[0])
		}
		if tok = resp.Next; tok == "" {
			break
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged namespaces %v, want %v", got, want)
	}
	tok = ""
	for range 10 {
		var resp struct {
			Identifiers []struct{ Name string } `json:"identifiers"`
			Next        string                  `json:"next-page-token"`
		}
		url := base + "/v1/namespaces/a/tables?pageSize=3"
		if tok != "" {
			url += "&pageToken=" + tok
		}
		if err := json.Unmarshal([]byte(mustDo(t, 200, "GET", url, "")), &resp); err != nil {
			t.Fatal(err)
		}
		for _, id := range resp.Identifiers {
			gotTables = append(gotTables, id.Name)
		}
		if tok = resp.Next; tok == "" {
			break
		}
	}
	if strings.Join(gotTables, ",") != "ta,tb,tc,td,te" {
		t.Fatalf("paged tables %v", gotTables)
	}
	for _, bad := range []string{"?pageSize=0", "?pageSize=x", "?pageToken=!!!"} {
		if code, _, _ := do(t, "GET", base+"/v1/namespaces"+bad, "", ""); code != http.StatusBadRequest {
			t.Errorf("GET namespaces%s: %d, want 400", bad, code)
		}
	}
}

// TestStageCreateRegisterMetrics covers a staged create (nothing written
// until the assert-create commit), registering an existing metadata file
// under a new name, and the metrics route.
func TestStageCreateRegisterMetrics(t *testing.T) {
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{})
	mustDo(t, 200, "POST", base+"/v1/namespaces", `{"namespace":["db"]}`)
	body := mustDo(t, 200, "POST", base+"/v1/namespaces/db/tables", `{"name":"s","stage-create":true,"schema":`+okSchema+`}`)
	if strings.Contains(body, "metadata-location") {
		t.Errorf("staged create has a metadata location: %s", body)
	}
	if code, _, _ := do(t, "HEAD", base+"/v1/namespaces/db/tables/s", "", ""); code != http.StatusNotFound {
		t.Fatalf("staged table exists before its commit: %d", code)
	}
	var staged struct {
		Metadata struct {
			Location string `json:"location"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &staged); err != nil || !strings.HasPrefix(staged.Metadata.Location, cat.Warehouse()+"/db/s") {
		t.Fatalf("staged location %q (%v)", staged.Metadata.Location, err)
	}
	commit := `{"requirements":[{"type":"assert-create"}],"updates":[{"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"},` +
		`{"action":"upgrade-format-version","format-version":2},{"action":"add-schema","schema":` + okSchema + `},` +
		`{"action":"set-current-schema","schema-id":-1},{"action":"set-location","location":"` + staged.Metadata.Location + `"}]}`
	body = mustDo(t, 200, "POST", base+"/v1/namespaces/db/tables/s", commit)
	var created struct {
		MetadataLocation string `json:"metadata-location"`
	}
	if err := json.Unmarshal([]byte(body), &created); err != nil || created.MetadataLocation == "" {
		t.Fatalf("commit of staged create: %v %s", err, body)
	}
	mustDo(t, 204, "HEAD", base+"/v1/namespaces/db/tables/s", "")

	reg := `{"name":"again","metadata-location":"` + created.MetadataLocation + `"}`
	body = mustDo(t, 200, "POST", base+"/v1/namespaces/db/register", reg)
	if !strings.Contains(body, created.MetadataLocation) {
		t.Fatalf("register answered %s", body)
	}
	mustDo(t, 409, "POST", base+"/v1/namespaces/db/register", reg)
	mustDo(t, 400, "POST", base+"/v1/namespaces/db/register", `{"name":"x","metadata-location":"file:///etc/passwd"}`)
	mustDo(t, 404, "POST", base+"/v1/namespaces/nope/register", `{"name":"y","metadata-location":"`+created.MetadataLocation+`"}`)
	mustDo(t, 204, "POST", base+"/v1/namespaces/db/tables/s/metrics", `{"report-type":"scan-report"}`)
}
