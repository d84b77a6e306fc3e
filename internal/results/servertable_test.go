package results

import (
	"strings"
	"testing"
)

func TestWriteServerTable(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	recs := []Record{
		{Target: "rest", Scenario: "load_table.latency", Ops: 10, P50US: 120, Dims: Dims{DimTables: 10_000},
			Server:         &ServerCost{CPUUSPerOp: f(67), RSSPeakBytes: i(80 << 20), RSSAfterBytes: i(78 << 20), Source: "proc", PIDs: []int{7}},
			WireBytesPerOp: f(1324),
			TimeParts:      &TimeParts{ServerUS: 2, ServerSource: "server-timing", HeadUS: 60, TransferUS: 5, ClientUS: f(55)}},
		{Target: "embedded", Scenario: "load_table.latency", Ops: 10, P50US: 20,
			Params: map[string]any{"server_cost_absent": "no server: the catalog runs in the benchmark's own process"}},
	}
	var b strings.Builder
	if err := WriteServerTable(&b, recs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"load_table.latency @10k tables", "67.0", "80.0", "78.0", "1324", "no server cost for embedded: no server"} {
		if !strings.Contains(out, want) {
			t.Errorf("server table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "2.000*") {
		t.Errorf("a Server-Timing server time is starred as time to first byte:\n%s", out)
	}
	b.Reset()
	if err := WriteServerTable(&b, []Record{{Target: "x", Scenario: "s", Ops: 1, P50US: 1}}); err != nil || b.Len() != 0 {
		t.Errorf("no server facts: printed %q, %v", b.String(), err)
	}
}
