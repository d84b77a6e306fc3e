package analysis

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// README blocks: a start marker naming a table and what it shows, the
// generated table, and an end marker. Everything between the markers is
// rewritten from the history; everything outside is left alone.
//
//	<!-- katbench:table peers targets=embedded,sql rows=load_table.latency:p50,load_table.throughput.t1:ops_sec ratios=sql/embedded -->
//	…generated…
//	<!-- /katbench:table -->
//
// The table's name is the label of the run it shows: the newest run whose
// lines were recorded with `--label NAME` ([Sources.Labels] names the runs
// recorded before lines carried labels). Attributes: label (another label
// than the name, so two tables can show one run), run (a run id or prefix
// instead of a label), targets (default: the run's targets in order), rows
// (scenario:metric, default every scenario's p50), ratios (B/A columns),
// control=true or control=SCENARIO,… (those p50 cells also say their
// multiple of the target's control p50), where=param=value (only lines
// whose param has that value, e.g. a transport run's endpoint), cmd="…"
// (the command, for lines that do not record it) and layout=NAME, the
// kind of table: each layout registers itself in its own file
// (RegisterLayout; layouts.go) with the attributes it reads, e.g.
// layout=ab (a= b= by= cpu= floor=, see abTable), layout=writes (see
// writesTable) or layout=verify-summary (see verifySummaryTable);
// `katbench readme --help` lists them all.
//
// Generated sections hold text that is not a measurement but must not
// drift from the code, e.g. the list of competitors:
//
//	<!-- katbench:generated competitors -->
//	…Sources.Sections["competitors"]…
//	<!-- /katbench:generated -->
const (
	blockStart   = "<!-- katbench:table "
	blockEnd     = "<!-- /katbench:table -->"
	sectionStart = "<!-- katbench:generated "
	sectionEnd   = "<!-- /katbench:generated -->"
)

// Errors of FoldReadme.
var (
	ErrBadMarker = errors.New("bad katbench:table marker")
	// ErrStale is returned by CheckReadme when a table differs from what
	// the history says.
	ErrStale = errors.New("README tables are stale")
)

// Sources is what the generated blocks of a README are made from. A
// Sources is read-only while it is used and then safe for concurrent use.
type Sources struct {
	History     []Line
	HistoryName string // the history's file name, as the tables cite it
	// Labels maps a label to a run id, for runs recorded before lines
	// carried labels (see [ReadLabels]); LabelsName is its file name.
	Labels     map[string]string
	LabelsName string
	// Sections are the bodies of the generated sections, by name.
	Sections map[string]string
}

// Block is one parsed table marker or generated section.
type Block struct {
	Name    string
	Attrs   map[string]string
	Line    int  // 1-based line of the start marker
	Section bool // a katbench:generated section, not a table
}

// FoldReadme returns readme with every katbench:table block regenerated
// from src's history and every katbench:generated section from its
// sections, and the blocks it found.
func FoldReadme(readme []byte, src Sources) ([]byte, []Block, error) {
	lines := strings.SplitAfter(string(readme), "\n")
	var out strings.Builder
	var blocks []Block
	seen := map[string]int{}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trim := strings.TrimSpace(l)
		start, end, section := blockStart, blockEnd, false
		switch {
		case strings.HasPrefix(trim, blockStart):
		case strings.HasPrefix(trim, sectionStart):
			start, end, section = sectionStart, sectionEnd, true
		case trim == blockEnd || trim == sectionEnd:
			return nil, nil, fmt.Errorf("%w: line %d: end marker without a start", ErrBadMarker, i+1)
		default:
			out.WriteString(l)
			continue
		}
		b, err := parseMarker(trim, start, i+1)
		if err != nil {
			return nil, nil, err
		}
		b.Section = section
		if prev, ok := seen[b.Name]; ok {
			return nil, nil, fmt.Errorf("%w: line %d: %q is already the name of the block at line %d", ErrBadMarker, i+1, b.Name, prev)
		}
		seen[b.Name] = i + 1
		stop := -1
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if t == end {
				stop = j
				break
			}
			if strings.HasPrefix(t, blockStart) || strings.HasPrefix(t, sectionStart) || t == blockEnd || t == sectionEnd {
				break
			}
		}
		if stop < 0 {
			return nil, nil, fmt.Errorf("%w: line %d: %q has no %s", ErrBadMarker, i+1, b.Name, end)
		}
		var body string
		if section {
			text, ok := src.Sections[b.Name]
			if !ok {
				return nil, nil, fmt.Errorf("%w: line %d: no generated section %q (known: %s)", ErrBadMarker, i+1, b.Name, strings.Join(sortedKeys(src.Sections), " "))
			}
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			body = text
		} else if body, err = renderBlock(b, src); err != nil {
			return nil, nil, fmt.Errorf("line %d, table %q: %w", i+1, b.Name, err)
		}
		out.WriteString(l)
		out.WriteString(body)
		out.WriteString(lines[stop])
		blocks = append(blocks, b)
		i = stop
	}
	return []byte(out.String()), blocks, nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ReadLabels reads a label file: one `LABEL<TAB>RUN_ID` per line, blank
// lines and lines starting with # ignored. A missing file is no labels.
func ReadLabels(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read labels: %w", err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		fs := strings.Fields(t)
		if len(fs) != 2 {
			return nil, fmt.Errorf("%w: %s:%d: want LABEL and RUN_ID", ErrBadMarker, path, n)
		}
		if _, dup := m[fs[0]]; dup {
			return nil, fmt.Errorf("%w: %s:%d: label %q given twice", ErrBadMarker, path, n, fs[0])
		}
		m[fs[0]] = fs[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read labels %s: %w", path, err)
	}
	return m, nil
}

// SelectLabel returns the lines of the newest run labelled label: the runs
// whose lines carry it and the run labels maps it to, whichever started
// last. from says where the label was found ("" for the lines themselves).
func SelectLabel(history []Line, label string, labels map[string]string, labelsName string) (lines []Line, from string, err error) {
	best := ""
	var bestInfo RunInfo
	for _, ri := range Runs(history) {
		if ri.Label == label && (best == "" || !ri.First.TS.Before(bestInfo.First.TS)) {
			best, bestInfo = ri.ID, ri
		}
	}
	if id, ok := labels[label]; ok {
		mapped, err := SelectRef(history, id)
		if err != nil {
			return nil, "", fmt.Errorf("label %q in %s: %w", label, labelsName, err)
		}
		if best == "" || mapped[0].TS.After(bestInfo.First.TS) {
			return mapped, labelsName, nil
		}
	}
	if best == "" {
		return nil, "", fmt.Errorf("%w: no run is labelled %q (record one with `--label %s`, or name its run id in %s)", ErrNoLines, label, label, labelsName)
	}
	var out []Line
	for _, l := range history {
		if l.RunID == best {
			out = append(out, l)
		}
	}
	return out, "", nil
}

// CheckReadme reports ErrStale, naming the blocks that differ, when
// folding src into readme would change it.
func CheckReadme(readme []byte, src Sources) error {
	folded, blocks, err := FoldReadme(readme, src)
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
		case strings.HasPrefix(t, blockStart) || strings.HasPrefix(t, sectionStart):
			start := blockStart
			if strings.HasPrefix(t, sectionStart) {
				start = sectionStart
			}
			if b, err := parseMarker(t, start, 0); err == nil {
				name = b.Name
				body.Reset()
			}
		case (t == blockEnd || t == sectionEnd) && name != "":
			m[name] = body.String()
			name = ""
		case name != "":
			body.WriteString(l)
		}
	}
	return m
}

// parseMarker reads `<!-- katbench:table NAME k=v k="v w" -->` (or a
// katbench:generated NAME marker, which takes no attributes).
func parseMarker(s, start string, line int) (Block, error) {
	inner := strings.TrimSuffix(strings.TrimPrefix(s, start), "-->")
	toks, err := splitQuoted(strings.TrimSpace(inner))
	if err != nil {
		return Block{}, fmt.Errorf("%w: line %d: %w", ErrBadMarker, line, err)
	}
	if len(toks) == 0 || strings.Contains(toks[0], "=") {
		return Block{}, fmt.Errorf("%w: line %d: the block needs a name before its attributes", ErrBadMarker, line)
	}
	b := Block{Name: toks[0], Attrs: map[string]string{}, Line: line}
	if start == sectionStart && len(toks) > 1 {
		return Block{}, fmt.Errorf("%w: line %d: a generated section takes no attributes", ErrBadMarker, line)
	}
	known := knownAttrs()
	for _, t := range toks[1:] {
		k, v, ok := strings.Cut(t, "=")
		if !ok || !slices.Contains(known, k) {
			return Block{}, fmt.Errorf("%w: line %d: attribute %q (known: %s)", ErrBadMarker, line, t, strings.Join(known, " "))
		}
		if _, dup := b.Attrs[k]; dup {
			return Block{}, fmt.Errorf("%w: line %d: attribute %q given twice", ErrBadMarker, line, k)
		}
		b.Attrs[k] = v
	}
	if b.Attrs["run"] != "" && b.Attrs["label"] != "" {
		return Block{}, fmt.Errorf("%w: line %d: table %q has both run= and label=", ErrBadMarker, line, b.Name)
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

// ratioSpec is one B/A of a ratios= attribute: num's value over den's.
type ratioSpec struct{ num, den string }

// parseRatios reads ratios=B/A,… ("" is none).
func parseRatios(spec string) ([]ratioSpec, error) {
	if spec == "" {
		return nil, nil
	}
	var out []ratioSpec
	for _, x := range strings.Split(spec, ",") {
		n, d, ok := strings.Cut(x, "/")
		if !ok {
			return nil, fmt.Errorf("%w: ratios %q: want B/A", ErrBadMarker, x)
		}
		out = append(out, ratioSpec{n, d})
	}
	return out, nil
}

// renderBlock builds the markdown of one block: a provenance line and the
// table.
func renderBlock(b Block, src Sources) (string, error) {
	var (
		run  []Line
		from string
		err  error
	)
	lay, err := lookupLayout(b)
	if err != nil {
		return "", err
	}
	label := b.Name
	if l := b.Attrs["label"]; l != "" {
		label = l
	}
	switch lay.Runs {
	case EveryRun:
		// label=A,B,…: every run of each label.
		var lines []Line
		labels := strings.Split(label, ",")
		for i, lb := range labels {
			if slices.Contains(labels[:i], lb) {
				return "", fmt.Errorf("%w: line %d: table %q names label %q twice", ErrBadMarker, b.Line, b.Name, lb)
			}
			ls, err := labelledLines(src.History, lb)
			if err != nil {
				return "", err
			}
			lines = append(lines, ls...)
		}
		body, err := lay.Render(b, lines, RunInfo{}, src)
		if err != nil {
			return "", err
		}
		return workersProvenance(lines, src.HistoryName, labels) + "\n" + body, nil
	case NewestOfEachLabel:
		var all []Line
		var ids []string
		for _, lb := range strings.Split(b.Attrs["label"], ",") {
			lines, _, err := SelectLabel(src.History, lb, src.Labels, src.LabelsName)
			if err != nil {
				return "", err
			}
			all = append(all, lines...)
			ids = append(ids, fmt.Sprintf("`%s` (%s)", lines[0].RunID, lb))
		}
		body, err := lay.Render(b, all, RunInfo{}, src)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("_Generated by `katbench readme` from the newest run of each label in `%s`: %s._\n\n", src.HistoryName, strings.Join(ids, ", ")) + body, nil
	}
	if ref := b.Attrs["run"]; ref != "" {
		label = ""
		run, err = SelectRef(src.History, ref)
	} else {
		run, from, err = SelectLabel(src.History, label, src.Labels, src.LabelsName)
	}
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
	sb.WriteString(provenance(info, b, src.HistoryName, label, from, run))
	sb.WriteString("\n")
	body, err := lay.Render(b, run, info, src)
	if err != nil {
		return "", err
	}
	sb.WriteString(body)
	return sb.String(), nil
}

func provenance(info RunInfo, b Block, historyName, label, from string, run []Line) string {
	f := info.First
	cmd := "command `" + f.Command + "`"
	switch {
	case f.Command != "":
	case b.Attrs["cmd"] != "":
		cmd = "command `" + b.Attrs["cmd"] + "` (as given in the marker: these lines do not record their command)"
	default:
		cmd = "command not recorded"
	}
	errs := int64(0)
	for _, l := range run {
		errs += l.Errors
	}
	e := ""
	if errs > 0 {
		e = fmt.Sprintf(" **%d errors in these lines.**", errs)
	}
	lab := ""
	switch {
	case label != "" && from != "":
		lab = fmt.Sprintf(" (label `%s` in `%s`)", label, from)
	case label != "":
		lab = fmt.Sprintf(" (label `%s`)", label)
	}
	commit := "commit " + commitCode(f, " tree")
	return fmt.Sprintf("_Generated by `katbench readme` from run `%s`%s in `%s`: %s; host %s; %s; %s.%s_\n",
		info.ID, lab, historyName, cmd, f.HostLabel(), f.TS.UTC().Format("2006-01-02 15:04 UTC"), commit, e)
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
	ratios, err := parseRatios(b.Attrs["ratios"])
	if err != nil {
		return "", err
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
			sb.WriteString(" " + timeRatioText(cell, ra.num, ra.den, r) + " |")
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
		s += fmt.Sprintf(" (%s control)", results.FormatRatio(v / *l.ControlP50US))
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
		s := fmt.Sprintf("%s [%s]", results.FormatRatio(rr.median), ratioRange(rr.lo, rr.hi))
		if rr.tie() {
			s += " tie"
		}
		return s
	}
	if v, ok := metricRatio(r.metric, b, a); ok {
		return results.FormatRatio(v)
	}
	return "—"
}

// timeRatioText is num's time per operation over den's, so that a ratio
// column reads one way on every row: above 1, num is slower. For a
// lower-is-better metric (µs) that is num's value over den's; for a
// higher-is-better one (ops/s) it is den's value over num's.
func timeRatioText(cell map[[2]string]Line, num, den string, r rowSpec) string {
	if r.metric.HigherBetter {
		num, den = den, num
	}
	return ratioText(cell, num, den, r)
}

func trimX(s string) string { return strings.TrimSuffix(s, "×") }

// ratioRange is "lo–hi" of two ratios, without their × signs.
func ratioRange(lo, hi float64) string {
	return trimX(results.FormatRatio(lo)) + "–" + trimX(results.FormatRatio(hi))
}

// abTable is the two-transport table (layout=ab, a= and b= the targets,
// or with by=PARAM values of that param, e.g. by=transport for a
// data-plane run): per scenario, p50 of A → B, and B/A of ops/s and p99,
// with the per-round spread when the lines carry rounds. cpu=yes adds B/A
// CPU per operation; floor=TARGET also TARGET/A, the lowest B/A CPU could
// be when TARGET is the transport bench's floor, and (B − TARGET)/(A −
// TARGET), what B adds to the floor over what A adds.
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
		side := l.Target
		if by := b.Attrs["by"]; by != "" {
			v, ok := l.Params[by]
			if !ok {
				continue
			}
			side = fmt.Sprint(v)
		}
		if _, dup := cell[[2]string{side, l.Scenario}]; dup {
			return "", fmt.Errorf("%w: two lines of %s for %s (narrow with where= or by=)", ErrBadMarker, side, l.Scenario)
		}
		cell[[2]string{side, l.Scenario}] = l
	}
	cpu, floor := b.Attrs["cpu"] != "" || b.Attrs["floor"] != "", b.Attrs["floor"]
	var sb strings.Builder
	if len(run[0].Rounds) == 0 {
		sb.WriteString("_Ratios of one merged value per cell: these lines carry no per-round samples, so no spread._\n\n")
	}
	fmt.Fprintf(&sb, "| cell | p50 µs %s → %s | %s/%s ops/s | %s/%s p99 |", a, bb, bb, a, bb, a)
	rule := "|---|---|---|---|"
	if cpu {
		fmt.Fprintf(&sb, " %s/%s CPU/op |", bb, a)
		rule += "---|"
	}
	if floor != "" {
		fmt.Fprintf(&sb, " %s/%s CPU/op: the lowest %s/%s could be | %s/%s CPU/op above %s's |", floor, a, bb, a, bb, a, floor)
		rule += "---|---|"
	}
	sb.WriteString("\n" + rule + "\n")
	for _, r := range rows {
		la, okA := cell[[2]string{a, r.scenario}]
		lb, okB := cell[[2]string{bb, r.scenario}]
		if !okA || !okB {
			return "", fmt.Errorf("%w: %s lacks %s or %s", ErrNoLines, r.scenario, a, bb)
		}
		var extra string
		if cpu {
			r, _ := ratioSpread(cpuPerOp, la, lb)
			extra += " " + r + " |"
		}
		if floor != "" {
			lf, ok := cell[[2]string{floor, r.scenario}]
			if !ok {
				return "", fmt.Errorf("%w: %s lacks %s", ErrNoLines, r.scenario, floor)
			}
			r, _ := ratioSpread(cpuPerOp, la, lf)
			extra += " " + r + " | " + cpuAbove(la, lb, lf) + " |"
		}
		ops, _ := ratioSpread(OpsSec, la, lb)
		p99, _ := ratioSpread(P99, la, lb)
		ops = strings.TrimSuffix(ops, " (n=1, no spread)")
		p99 = strings.TrimSuffix(p99, " (n=1, no spread)")
		if mibA, ok := la.Measure("mib_s"); ok {
			if mibB, ok := lb.Measure("mib_s"); ok {
				ops += fmt.Sprintf(" (%s → %s MiB/s)", FormatNum(mibA.Value), FormatNum(mibB.Value))
			}
		}
		fmt.Fprintf(&sb, "| %s | %s → %s | %s | %s |%s\n", r.scenario, cellText(la, true, P50, false), cellText(lb, true, P50, false), ops, p99, extra)
	}
	return sb.String(), nil
}

// cpuAbove is what b's CPU per operation adds to floor's over what a's
// adds, (b − floor)/(a − floor), round by round when all three carry the
// same rounds (a round where either difference is not positive is left
// out), else of the whole values; "—" when it cannot be said.
func cpuAbove(a, b, floor Line) string {
	sa, sb, sf := cpuPerOp.Samples(a), cpuPerOp.Samples(b), cpuPerOp.Samples(floor)
	if len(sa) == len(sf) && len(sb) == len(sf) {
		var da, db []float64
		for i := range sf {
			if x, y := sa[i]-sf[i], sb[i]-sf[i]; x > 0 && y > 0 {
				da, db = append(da, x), append(db, y)
			}
		}
		if rr, ok := sampleRatios(da, db); ok {
			return rr.String()
		}
	}
	va, okA := cpuPerOp.Value(a)
	vb, okB := cpuPerOp.Value(b)
	vf, okF := cpuPerOp.Value(floor)
	if okA && okB && okF && va > vf && vb > vf {
		return fmt.Sprintf("%.3g× (n=1, no spread)", (vb-vf)/(va-vf))
	}
	return "—"
}

func init() {
	RegisterLayout(Layout{Name: "", Doc: "the default: a run's targets side by side per scenario, with ratios to a control", Attrs: []string{"targets", "rows", "ratios", "control"},
		Render: func(b Block, run []Line, info RunInfo, _ Sources) (string, error) { return targetsTable(b, run, info) }})
	RegisterLayout(Layout{Name: "ab", Doc: "an A/B run: B against A per cell, with the verdict", Attrs: []string{"a", "b", "by", "rows", "cpu", "floor"},
		Render: func(b Block, run []Line, _ RunInfo, _ Sources) (string, error) { return abTable(b, run) }})
}
