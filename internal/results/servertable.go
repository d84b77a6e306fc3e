package results

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteServerTable prints what the servers paid for the lines' operations
// (`server` and `wire_bytes_per_op`): one row per measured line that has
// either, beside the line's p50 so the client's time and the server's
// work are read together. Lines whose server was not measured are listed
// below with why, one note per distinct reason. It prints nothing when no
// line has a server cost or a reason for its absence.
func WriteServerTable(w io.Writer, recs []Record) error {
	cols := []column{
		{head: "target", left: true}, {head: "scenario", left: true}, {head: "p50 µs"},
		{head: "server CPU µs/op"}, {head: "store CPU µs/op"}, {head: "RSS peak MiB"},
		{head: "RSS after MiB"}, {head: "store MiB"}, {head: "wire B/op"},
		{head: "server µs"}, {head: "head µs"}, {head: "transfer µs"}, {head: "client µs"},
	}
	absent := map[string][]string{} // reason → targets
	rows := 0
	for _, r := range recs {
		if r.Skipped != "" {
			continue
		}
		if why, ok := r.Params["server_cost_absent"].(string); ok {
			key := why
			if !contains(absent[key], r.Target) {
				absent[key] = append(absent[key], r.Target)
			}
		}
		if r.Server == nil && r.WireBytesPerOp == nil && r.TimeParts == nil {
			continue
		}
		rows++
		s := r.Server
		if s == nil {
			s = &ServerCost{}
		}
		vals := []string{r.Target, RowName(r), num(r.P50US),
			optF(s.CPUUSPerOp), optF(s.StoreCPUUSPerOp), optMiB(s.RSSPeakBytes),
			optMiB(s.RSSAfterBytes), optMiB(s.StoreBytes), optF(r.WireBytesPerOp)}
		vals = append(vals, timeParts(r.TimeParts)...)
		for i := range cols {
			cols[i].cells = append(cols[i].cells, vals[i])
		}
	}
	if rows == 0 && len(absent) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\nwhat the server paid (measured phase only; server CPU includes its store's):\n")
	if rows > 0 {
		writeColumns(&b, cols)
		b.WriteString("server, head, transfer, client: where the mean operation's time went, per operation (server from its Server-Timing header, " +
			"or * = time to first byte where it sends none; client = mean − head − transfer: the client's own decoding)\n")
	}
	reasons := make([]string, 0, len(absent))
	for why := range absent {
		reasons = append(reasons, why)
	}
	sort.Strings(reasons)
	for _, why := range reasons {
		fmt.Fprintf(&b, "no server cost for %s: %s\n", strings.Join(absent[why], ", "), why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RowName is the line's row in the tables: its scenario, and the
// dataset's size when the line is one size of a growth sweep.
func RowName(r Record) string {
	if v, ok := r.Dims[DimTables]; ok {
		return fmt.Sprintf("%s @%s tables", r.Scenario, CountName(int64(v)))
	}
	return r.Scenario
}

// DimTables is the dimension of a growth sweep: the tables in the
// catalog when the line was measured.
const DimTables = "tables"

// CountName writes n the way --tables takes it: 1k, 10k, 1M, 250.
func CountName(n int64) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func optF(v *float64) string {
	if v == nil {
		return "—"
	}
	if *v == 0 {
		return "0"
	}
	return num(*v)
}

func optMiB(v *int64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", float64(*v)/(1<<20))
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// timeParts are the four time columns of a line: server (starred when it
// is the time to first byte), head, transfer, client.
func timeParts(tp *TimeParts) []string {
	if tp == nil {
		return []string{"—", "—", "—", "—"}
	}
	server := num(tp.ServerUS)
	if tp.ServerSource != "server-timing" {
		server += "*"
	}
	return []string{server, num(tp.HeadUS), num(tp.TransferUS), optF(tp.ClientUS)}
}
