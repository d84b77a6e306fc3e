package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// README blocks: a start marker naming a table and what it shows, the
// generated table, and an end marker. Everything between the markers is
// rewritten from the history; everything outside is left alone.
//
//	<!-- katbench:table peers run=7a13c627e11109c0 targets=embedded,sql rows=load_table.latency:p50,load_table.throughput.t1:ops_sec ratios=sql/embedded -->
//	…generated…
//	<!-- /katbench:table -->
//
// Attributes: run (required: run id or prefix), targets (default: the run's
// targets in order), rows (scenario:metric, default every scenario's p50),
// ratios (B/A columns), control=true or control=SCENARIO,… (those p50
// cells also say their multiple of the target's control p50), where=param=value (only lines
// whose param has that value, e.g. a transport run's endpoint), layout=ab
// with a= and b= (a two-transport A/B table: p50 A → B, B/A ops/s, B/A p99),
// and cmd="…" (the command, for lines that do not record it).
const (
	blockStart = "<!-- katbench:table "
	blockEnd   = "<!-- /katbench:table -->"
)

// Errors of FoldReadme.
var (
	ErrBadMarker = errors.New("bad katbench:table marker")
	// ErrStale is returned by CheckReadme when a table differs from what
	// the history says.
	ErrStale = errors.New("README tables are stale")
)

// Block is one parsed table marker.
type Block struct {
	Name  string
	Attrs map[string]string
	Line  int // 1-based line of the start marker
}

// FoldReadme returns readme with every katbench:table block regenerated
// from history, and the blocks it found.
func FoldReadme(readme []byte, history []Line, historyName string) ([]byte, []Block, error) {
	lines := strings.SplitAfter(string(readme), "\n")
	var out strings.Builder
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trim := strings.TrimSpace(l)
		if !strings.HasPrefix(trim, blockStart) {
			if trim == blockEnd {
				return nil, nil, fmt.Errorf("%w: line %d: end marker without a start", ErrBadMarker, i+1)
			}
			out.WriteString(l)
			continue
		}
		b, err := parseMarker(trim, i+1)
		if err != nil {
			return nil, nil, err
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if t == blockEnd {
				end = j
				break
			}
			if strings.HasPrefix(t, blockStart) {
				break
			}
		}
		if end < 0 {
			return nil, nil, fmt.Errorf("%w: line %d: table %q has no %s", ErrBadMarker, i+1, b.Name, blockEnd)
		}
		table, err := renderBlock(b, history, historyName)
		if err != nil {
			return nil, nil, fmt.Errorf("README line %d, table %q: %w", i+1, b.Name, err)
		}
		out.WriteString(l)
		out.WriteString(table)
		out.WriteString(lines[end])
		blocks = append(blocks, b)
		i = end
	}
	return []byte(out.String()), blocks, nil
}

// CheckReadme reports ErrStale, naming the tables that differ, when
// folding history into readme would change it.
func CheckReadme(readme []byte, history []Line, historyName string) error {
	folded, blocks, err := FoldReadme(readme, history, historyName)
	if err != nil {
		return err
	}
	if bytes.Equal(folded, readme) {
		return nil
	}
	var stale []string
	old := splitBlocks(readme)
	neu := splitBlocks(folded)
	for _, b := range blocks {
		if old[b.Name] != neu[b.Name] {
			stale = append(stale, b.Name)
		}
	}
	return fmt.Errorf("%w: %s (run `katbench readme` to regenerate)", ErrStale, strings.Join(stale, ", "))
}

// splitBlocks maps each block's name to its generated body.
func splitBlocks(readme []byte) map[string]string {
	m := map[string]string{}
	name := ""
	var body strings.Builder
	for _, l := range strings.SplitAfter(string(readme), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, blockStart):
			if b, err := parseMarker(t, 0); err == nil {
				name = b.Name
				body.Reset()
			}
		case t == blockEnd && name != "":
			m[name] = body.String()
			name = ""
		case name != "":
			body.WriteString(l)
		}
	}
	return m
}

var knownAttrs = map[string]bool{"run": true, "targets": true, "rows": true, "ratios": true, "control": true,
	"where": true, "layout": true, "a": true, "b": true, "cmd": true}

// parseMarker reads `<!-- katbench:table NAME k=v k="v w" -->`.
func parseMarker(s string, line int) (Block, error) {
	inner := strings.TrimSuffix(strings.TrimPrefix(s, blockStart), "-->")
	toks, err := splitQuoted(strings.TrimSpace(inner))
	if err != nil {
		return Block{}, fmt.Errorf("%w: line %d: %w", ErrBadMarker, line, err)
	}
	if len(toks) == 0 || strings.Contains(toks[0], "=") {
		return Block{}, fmt.Errorf("%w: line %d: the table needs a name before its attributes", ErrBadMarker, line)
	}
	b := Block{Name: toks[0], Attrs: map[string]string{}, Line: line}
	for _, t := range toks[1:] {
		k, v, ok := strings.Cut(t, "=")
		if !ok || !knownAttrs[k] {
			return Block{}, fmt.Errorf("%w: line %d: attribute %q (known: run targets rows ratios control where layout a b cmd)", ErrBadMarker, line, t)
		}
		b.Attrs[k] = v
	}
	if b.Attrs["run"] == "" {
		return Block{}, fmt.Errorf("%w: line %d: table %q has no run=", ErrBadMarker, line, b.Name)
	}
	return b, nil
}

// splitQuoted splits on spaces, keeping "double quoted" parts together.
func splitQuoted(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inQ, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQ = !inQ
			have = true
		case r == ' ' && !inQ:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQ {
		return nil, errors.New("unclosed quote")
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}

// renderBlock builds the markdown of one block: a provenance line and the
// table.
func renderBlock(b Block, history []Line, historyName string) (string, error) {
	run, err := SelectRef(history, b.Attrs["run"])
	if err != nil {
		return "", err
	}
	if w := b.Attrs["where"]; w != "" {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return "", fmt.Errorf("%w: where=%q: want param=value", ErrBadMarker, w)
		}
		var kept []Line
		for _, l := range run {
			if fmt.Sprint(l.Params[k]) == v {
				kept = append(kept, l)
			}
		}
		if len(kept) == 0 {
			return "", fmt.Errorf("%w: no line of run %s has %s", ErrNoLines, run[0].RunID, w)
		}
		run = kept
	}
	info := Runs(run)[0]
	var sb strings.Builder
	sb.WriteString(provenance(info, b, historyName, run))
	sb.WriteString("\n")
	var body string
	if b.Attrs["layout"] == "ab" {
		body, err = abTable(b, run)
	} else {
		body, err = targetsTable(b, run, info)
	}
	if err != nil {
		return "", err
	}
	sb.WriteString(body)
	return sb.String(), nil
}

func provenance(info RunInfo, b Block, historyName string, run []Line) string {
	f := info.First
	cmd := "command `" + f.Command + "`"
	switch {
	case f.Command != "":
	case b.Attrs["cmd"] != "":
		cmd = "command `" + b.Attrs["cmd"] + "` (as given in the marker: these lines do not record their command)"
	default:
		cmd = "command not recorded"
	}
	state := "clean tree"
	if f.Commit.Dirty {
		state = "dirty tree"
	}
	sha := f.Commit.SHA
	if len(sha) > 12 {
		sha = sha[:12]
	}
	errs := int64(0)
	for _, l := range run {
		errs += l.Errors
	}
	e := ""
	if errs > 0 {
		e = fmt.Sprintf(" **%d errors in these lines.**", errs)
	}
	return fmt.Sprintf("_Generated by `katbench readme` from run `%s` in `%s`: %s; host %s; %s; commit `%s` (%s).%s_\n",
		info.ID, historyName, cmd, f.HostLabel(), f.TS.UTC().Format("2006-01-02 15:04 UTC"), sha, state, e)
}

type rowSpec struct {
	scenario string
	metric   Metric
}

func parseRows(spec string, run []Line) ([]rowSpec, error) {
	if spec == "" {
		var rs []rowSpec
		seen := map[string]bool{}
		for _, l := range run {
			if !seen[l.Scenario] {
				seen[l.Scenario] = true
				rs = append(rs, rowSpec{l.Scenario, P50})
			}
		}
		return rs, nil
	}
	var rs []rowSpec
	for _, r := range strings.Split(spec, ",") {
		s, m, ok := strings.Cut(r, ":")
		metric := P50
		if ok {
			var err error
			if metric, err = MetricByName(m); err != nil {
				return nil, fmt.Errorf("rows %q: %w", r, err)
			}
		}
		rs = append(rs, rowSpec{s, metric})
	}
	return rs, nil
}

func targetsTable(b Block, run []Line, info RunInfo) (string, error) {
	targets := info.Targets
	if t := b.Attrs["targets"]; t != "" {
		targets = strings.Split(t, ",")
	}
	rows, err := parseRows(b.Attrs["rows"], run)
	if err != nil {
		return "", err
	}
	type ratio struct{ num, den string }
	var ratios []ratio
	if r := b.Attrs["ratios"]; r != "" {
		for _, x := range strings.Split(r, ",") {
			n, d, ok := strings.Cut(x, "/")
			if !ok {
				return "", fmt.Errorf("%w: ratios %q: want B/A", ErrBadMarker, x)
			}
			ratios = append(ratios, ratio{n, d})
		}
	}
	cell := map[[2]string]Line{}
	for _, l := range run {
		cell[[2]string{l.Target, l.Scenario}] = l
	}
	for _, t := range targets {
		found := false
		for _, l := range run {
			found = found || l.Target == t
		}
		if !found {
			return "", fmt.Errorf("%w: target %q is not in run %s", ErrNoLines, t, info.ID)
		}
	}
	var sb strings.Builder
	sb.WriteString("| scenario |")
	for _, t := range targets {
		sb.WriteString(" " + t + " |")
	}
	for _, r := range ratios {
		sb.WriteString(fmt.Sprintf(" %s / %s |", r.num, r.den))
	}
	sb.WriteString("\n|---|")
	for range len(targets) + len(ratios) {
		sb.WriteString("---|")
	}
	sb.WriteString("\n")
	ctl := b.Attrs["control"]
	for _, r := range rows {
		withControl := ctl == "true" || contains(strings.Split(ctl, ","), r.scenario)
		fmt.Fprintf(&sb, "| %s %s |", r.scenario, metricLabel(r.metric))
		any := false
		for _, t := range targets {
			l, ok := cell[[2]string{t, r.scenario}]
			any = any || ok
			sb.WriteString(" " + cellText(l, ok, r.metric, withControl) + " |")
		}
		if !any {
			return "", fmt.Errorf("%w: scenario %q is not in run %s", ErrNoLines, r.scenario, info.ID)
		}
		for _, ra := range ratios {
			sb.WriteString(" " + ratioText(cell, ra.num, ra.den, r) + " |")
		}
		sb.WriteString("\n")
	}
	return sb.String(), nil
}

func metricLabel(m Metric) string {
	if m.Name == "ops_sec" {
		return "ops/s"
	}
	return m.Name + " µs"
}

func cellText(l Line, ok bool, m Metric, withControl bool) string {
	switch {
	case !ok:
		return "—"
	case l.Skipped != "":
		return "skipped"
	}
	v, have := m.Value(l)
	if !have {
		return fmt.Sprintf("no value (%d errors)", l.Errors)
	}
	s := FormatNum(v)
	if withControl && m.Name == P50.Name && l.ControlP50US != nil && *l.ControlP50US > 0 && !isControl(l) {
		s += fmt.Sprintf(" (%s control)", fmtRatio(v / *l.ControlP50US))
	}
	if l.Errors > 0 {
		s += fmt.Sprintf(" (%d errors)", l.Errors)
	}
	return s
}

func ratioText(cell map[[2]string]Line, num, den string, r rowSpec) string {
	a, okA := cell[[2]string{den, r.scenario}]
	b, okB := cell[[2]string{num, r.scenario}]
	if !okA || !okB {
		return "—"
	}
	if rr, ok := roundRatios(r.metric, a, b); ok {
		// Interleaved rounds: the median of the per-round ratios with their
		// range, and "tie" when the range straddles 1.
		s := fmt.Sprintf("%s [%s–%s]", fmtRatio(rr.median), trimX(fmtRatio(rr.lo)), trimX(fmtRatio(rr.hi)))
		if rr.tie() {
			s += " tie"
		}
		return s
	}
	va, ha := r.metric.Value(a)
	vb, hb := r.metric.Value(b)
	if !ha || !hb || va == 0 {
		return "—"
	}
	return fmtRatio(vb / va)
}

func trimX(s string) string { return strings.TrimSuffix(s, "×") }

func fmtRatio(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.3g×", x)
}

// abTable is the two-transport table: per scenario, p50 of A → B, and B/A
// of ops/s and p99, with the per-round spread when the lines carry rounds.
func abTable(b Block, run []Line) (string, error) {
	a, bb := b.Attrs["a"], b.Attrs["b"]
	if a == "" || bb == "" {
		return "", fmt.Errorf("%w: layout=ab needs a= and b=", ErrBadMarker)
	}
	rows, err := parseRows(b.Attrs["rows"], run)
	if err != nil {
		return "", err
	}
	cell := map[[2]string]Line{}
	for _, l := range run {
		cell[[2]string{l.Target, l.Scenario}] = l
	}
	var sb strings.Builder
	if len(run[0].Rounds) == 0 {
		sb.WriteString("_Ratios of one merged value per cell: these lines carry no per-round samples, so no spread._\n\n")
	}
	fmt.Fprintf(&sb, "| cell | p50 µs %s → %s | %s/%s ops/s | %s/%s p99 |\n|---|---|---|---|\n", a, bb, bb, a, bb, a)
	for _, r := range rows {
		la, okA := cell[[2]string{a, r.scenario}]
		lb, okB := cell[[2]string{bb, r.scenario}]
		if !okA || !okB {
			return "", fmt.Errorf("%w: %s lacks %s or %s", ErrNoLines, r.scenario, a, bb)
		}
		ops, _ := ratioSpread(OpsSec, la, lb)
		p99, _ := ratioSpread(P99, la, lb)
		ops = strings.TrimSuffix(ops, " (n=1, no spread)")
		p99 = strings.TrimSuffix(p99, " (n=1, no spread)")
		if mibA, ok := la.Params["mib_s"].(float64); ok {
			if mibB, ok := lb.Params["mib_s"].(float64); ok {
				ops += fmt.Sprintf(" (%s → %s MiB/s)", FormatNum(mibA), FormatNum(mibB))
			}
		}
		fmt.Fprintf(&sb, "| %s | %s → %s | %s | %s |\n", r.scenario, cellText(la, true, P50, false), cellText(lb, true, P50, false), ops, p99)
	}
	return sb.String(), nil
}
