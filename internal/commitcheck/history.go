package commitcheck

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	icecatalog "github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// Kind names an anomaly.
type Kind string

// The anomalies Check finds. Every one is an error: a catalog that keeps
// its commits has none.
const (
	Lost       Kind = "lost"
	Duplicated Kind = "duplicated"
	Phantom    Kind = "phantom"
	Forked     Kind = "forked"
	Unreadable Kind = "unreadable"
)

// Kinds are every anomaly kind, in the order reports list them.
var Kinds = []Kind{Lost, Duplicated, Phantom, Forked, Unreadable}

// Anomaly is one thing found wrong, with its evidence.
type Anomaly struct {
	Kind     Kind   `json:"kind"`
	Table    string `json:"table"`
	Marker   string `json:"marker,omitempty"`
	Expected string `json:"expected"`
	Found    string `json:"found"`
}

func (a Anomaly) String() string {
	m := ""
	if a.Marker != "" {
		m = " marker " + a.Marker
	}
	return fmt.Sprintf("%s: table %s%s: expected %s, found %s", a.Kind, a.Table, m, a.Expected, a.Found)
}

// Report is what Check found.
type Report struct {
	Acked, Refused, Indeterminate int
	// IndeterminatePresent and IndeterminateAbsent split the
	// indeterminate attempts by whether their marker is in the history;
	// neither is an error.
	IndeterminatePresent, IndeterminateAbsent int
	// Counts holds the number of anomalies of each kind (every kind
	// present, 0 when none).
	Counts    map[Kind]int
	Anomalies []Anomaly
}

// Errors is the number of anomalies of every kind.
func (r Report) Errors() int { return len(r.Anomalies) }

func (r *Report) add(a Anomaly) {
	r.Counts[a.Kind]++
	r.Anomalies = append(r.Anomalies, a)
}

// headBytes is how much of a snapshot's manifest list checkFiles reads:
// enough for the Avro header. Only main's head's list is parsed whole
// (stateMarkers), since each fast append's list repeats every earlier
// manifest.
const headBytes = 4

var avroMagic = []byte{'O', 'b', 'j', 1}

// Check reads every table of tables through cat and checks the attempts
// of the log against their histories. It returns an error only when ctx
// ends; whatever cannot be read is an Unreadable anomaly.
func Check(ctx context.Context, cat icecatalog.Catalog, tables []table.Identifier, attempts []Attempt) (Report, error) {
	r := Report{Counts: map[Kind]int{}}
	for _, k := range Kinds {
		r.Counts[k] = 0
	}
	byTable := map[string][]Attempt{}
	for _, a := range attempts {
		byTable[a.Table] = append(byTable[a.Table], a)
		switch a.Outcome {
		case Acked:
			r.Acked++
		case Refused:
			r.Refused++
		default:
			r.Indeterminate++
		}
	}
	for _, id := range tables {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		checkTable(ctx, &r, cat, id, byTable[strings.Join(id, ".")])
	}
	return r, nil
}

func checkTable(ctx context.Context, r *Report, cat icecatalog.Catalog, id table.Identifier, attempts []Attempt) {
	name := strings.Join(id, ".")
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		r.add(Anomaly{Kind: Unreadable, Table: name, Expected: "the table loads", Found: err.Error()})
		for _, a := range attempts {
			if a.Outcome == Acked {
				r.add(Anomaly{Kind: Lost, Table: name, Marker: a.Marker, Expected: "acknowledged commit in the history", Found: "no readable history"})
			}
		}
		return
	}
	meta := tbl.Metadata()
	fs, err := tbl.FS(ctx)
	if err != nil {
		r.add(Anomaly{Kind: Unreadable, Table: name, Expected: "the table's file IO", Found: err.Error()})
	}
	var versions []version
	if fs != nil {
		versions = checkFiles(ctx, r, name, id, meta, tbl.MetadataLocation(), fs)
	}
	// The history: which snapshots carry each marker. A catalog may keep
	// only part of it (Nessie keeps the current snapshot alone), so the
	// state is read too: the data files main's head holds, one per
	// commit, each named after its marker.
	found := map[string][]int64{}
	for _, s := range meta.Snapshots() {
		if m := markerOf(&s); m != "" {
			found[m] = append(found[m], s.SnapshotID)
		}
	}
	inState, stateErr := stateMarkers(meta, fs)
	if stateErr != nil {
		r.add(Anomaly{Kind: Unreadable, Table: name, Expected: "the data files of main's head readable", Found: stateErr.Error()})
	}
	markers := make([]string, 0, len(found))
	for m := range found {
		markers = append(markers, m)
	}
	sort.Strings(markers)
	for _, m := range markers {
		if ids := found[m]; len(ids) > 1 {
			r.add(Anomaly{Kind: Duplicated, Table: name, Marker: m, Expected: "the marker in one snapshot", Found: fmt.Sprintf("it in %d snapshots %v", len(ids), ids)})
		}
	}
	stateKnown := stateErr == nil && inState != nil
	if stateKnown {
		markers = markers[:0]
		for m, n := range inState {
			if n > 1 && len(found[m]) <= 1 {
				markers = append(markers, m)
			}
		}
		sort.Strings(markers)
		for _, m := range markers {
			r.add(Anomaly{Kind: Duplicated, Table: name, Marker: m, Expected: "its data file once in main's state", Found: fmt.Sprintf("it %d times", inState[m])})
		}
	}
	for _, a := range attempts {
		present := len(found[a.Marker]) > 0 || inState[a.Marker] > 0
		switch {
		case a.Outcome == Acked && stateKnown && inState[a.Marker] == 0:
			where := fmt.Sprintf("its data file not among the %d of main's head", total(inState))
			if len(found[a.Marker]) > 0 {
				where += fmt.Sprintf(" (snapshot %v carries it, off the branch's state)", found[a.Marker])
			}
			where += inVersions(versions, a.Marker)
			if a.Ack != nil {
				where += fmt.Sprintf("; the answer acknowledged it as snapshot %d on parent %d (sequence number %d, %s)", a.Ack.Snapshot, a.Ack.Parent, a.Ack.Sequence, a.Ack.MetadataFile)
			}
			r.add(Anomaly{Kind: Lost, Table: name, Marker: a.Marker, Expected: "acknowledged commit in the table", Found: where})
		case a.Outcome == Acked && !stateKnown && !present:
			r.add(Anomaly{Kind: Lost, Table: name, Marker: a.Marker, Expected: "acknowledged commit in the history", Found: fmt.Sprintf("no snapshot with it (of %d)", len(meta.Snapshots()))})
		case a.Outcome == Refused && present:
			r.add(Anomaly{Kind: Phantom, Table: name, Marker: a.Marker, Expected: "refused commit absent (" + a.Err + ")", Found: fmt.Sprintf("it in the table (snapshots %v, %d data files)", found[a.Marker], inState[a.Marker])})
		case a.Outcome == Indeterminate && present:
			r.IndeterminatePresent++
		case a.Outcome == Indeterminate:
			r.IndeterminateAbsent++
		}
	}
	checkLinear(r, name, meta, versions)
	checkAcks(r, name, attempts)
}

// checkAcks checks the client's own evidence: on one branch each commit
// takes the next sequence number, so two acknowledged commits whose
// answers name the same sequence number both passed the same
// assert-ref-snapshot-id and one overwrote the other (a lost update) —
// seen whatever history the catalog keeps, and whatever parent ids it
// reports (Nessie reports none).
func checkAcks(r *Report, name string, attempts []Attempt) {
	bySeq := map[int64][]Attempt{}
	for _, a := range attempts {
		if a.Outcome == Acked && a.Ack != nil && a.Ack.Sequence > 0 {
			bySeq[a.Ack.Sequence] = append(bySeq[a.Ack.Sequence], a)
		}
	}
	seqs := make([]int64, 0, len(bySeq))
	for q, as := range bySeq {
		if len(as) > 1 {
			seqs = append(seqs, q)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	for _, q := range seqs {
		as := bySeq[q]
		var acks []string
		for _, a := range as {
			acks = append(acks, fmt.Sprintf("%s as snapshot %d on parent %d (%s)", a.Marker, a.Ack.Snapshot, a.Ack.Parent, a.Ack.MetadataFile))
		}
		r.add(Anomaly{Kind: Forked, Table: name, Marker: as[1].Marker,
			Expected: fmt.Sprintf("one acknowledged commit with sequence number %d", q),
			Found:    fmt.Sprintf("%d acknowledged with it: %s", len(as), strings.Join(acks, "; "))})
	}
}

// checkLinear checks the main branch: each snapshot of the snapshot log
// has the previous entry as parent and a larger sequence number, the
// branch's head is the log's last entry, and every snapshot that carries
// a marker is an ancestor of the head.
func checkLinear(r *Report, name string, meta table.Metadata, versions []version) {
	forked := map[int64]bool{}
	fork := func(id int64, expected, found string) {
		if !forked[id] {
			forked[id] = true
			r.add(Anomaly{Kind: Forked, Table: name, Expected: expected, Found: found})
		}
	}
	checkVersions(r, name, versions, fork)
	var prev *table.Snapshot
	var last int64 = -1
	for e := range meta.SnapshotLogs() {
		s := meta.SnapshotByID(e.SnapshotID)
		if s == nil {
			r.add(Anomaly{Kind: Unreadable, Table: name, Expected: fmt.Sprintf("snapshot %d of the snapshot log in the table", e.SnapshotID), Found: "no such snapshot"})
			prev = nil
			continue
		}
		if prev != nil {
			switch {
			case s.ParentSnapshotID == nil || *s.ParentSnapshotID != prev.SnapshotID:
				fork(s.SnapshotID, fmt.Sprintf("snapshot %d's parent to be the previous head %d", s.SnapshotID, prev.SnapshotID), "parent "+parentText(s))
			case s.SequenceNumber <= prev.SequenceNumber:
				fork(s.SnapshotID, fmt.Sprintf("snapshot %d's sequence number above %d (snapshot %d)", s.SnapshotID, prev.SequenceNumber, prev.SnapshotID), fmt.Sprint(s.SequenceNumber))
			}
		}
		prev, last = s, s.SnapshotID
	}
	head := meta.SnapshotByName(table.MainBranch)
	if head == nil {
		if last != -1 {
			fork(last, "the main branch at the snapshot log's last snapshot "+fmt.Sprint(last), "no main branch")
		}
		return
	}
	if last != -1 && head.SnapshotID != last {
		fork(head.SnapshotID, "the main branch at the snapshot log's last snapshot "+fmt.Sprint(last), fmt.Sprintf("it at %d", head.SnapshotID))
	}
	ancestors := map[int64]bool{}
	for s := head; s != nil && !ancestors[s.SnapshotID]; {
		ancestors[s.SnapshotID] = true
		if s.ParentSnapshotID == nil {
			break
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	for _, s := range meta.Snapshots() {
		if s.Summary == nil || ancestors[s.SnapshotID] {
			continue
		}
		if m, ok := s.Summary.Properties[MarkerProperty]; ok {
			fork(s.SnapshotID, fmt.Sprintf("snapshot %d (marker %s) an ancestor of main's head %d", s.SnapshotID, m, head.SnapshotID), "it off the branch, parent "+parentText(&s))
		}
	}
}

func parentText(s *table.Snapshot) string {
	if s.ParentSnapshotID == nil {
		return "none"
	}
	return fmt.Sprint(*s.ParentSnapshotID)
}

// checkFiles parses every metadata-log file and reads the Avro header of
// every snapshot's manifest list (the head's is parsed whole by
// stateMarkers).
func checkFiles(ctx context.Context, r *Report, name string, id table.Identifier, meta table.Metadata, loc string, fs iceio.IO) []version {
	var versions []version
	for e := range meta.PreviousFiles() {
		if ctx.Err() != nil {
			return nil
		}
		tbl, err := table.NewFromLocation(ctx, id, e.MetadataFile, func(context.Context) (iceio.IO, error) { return fs, nil }, nil)
		if err != nil {
			r.add(Anomaly{Kind: Unreadable, Table: name, Expected: "metadata-log file " + e.MetadataFile + " readable", Found: err.Error()})
			versions = append(versions, version{file: e.MetadataFile, unread: true})
			continue
		}
		versions = append(versions, version{file: e.MetadataFile, head: tbl.Metadata().SnapshotByName(table.MainBranch)})
	}
	versions = append(versions, version{file: loc, head: meta.SnapshotByName(table.MainBranch)})
	for _, s := range meta.Snapshots() {
		if ctx.Err() != nil {
			return nil
		}
		if s.ManifestList == "" {
			continue
		}
		if err := avroHeader(fs, s.ManifestList); err != nil {
			r.add(Anomaly{Kind: Unreadable, Table: name, Marker: markerOf(&s),
				Expected: fmt.Sprintf("snapshot %d's manifest list %s readable", s.SnapshotID, s.ManifestList), Found: err.Error()})
		}
	}
	return versions
}

// version is one metadata file of the metadata log (or the current one)
// and main's head in it.
type version struct {
	file   string
	head   *table.Snapshot
	unread bool
}

// checkVersions checks main's heads along the metadata log, which shows
// the branch's history even where a catalog keeps only the current
// snapshot: each new head's parent must be the previous version's head,
// with a larger sequence number. A version that could not be read breaks
// the chain (it is unreadable already).
func checkVersions(r *Report, name string, versions []version, fork func(id int64, expected, found string)) {
	var prev *version
	for i := range versions {
		v := &versions[i]
		if v.unread {
			prev = nil
			continue
		}
		if v.head == nil {
			continue
		}
		if prev != nil && prev.head != nil && v.head.SnapshotID != prev.head.SnapshotID {
			p := prev.head
			switch {
			case v.head.ParentSnapshotID == nil || *v.head.ParentSnapshotID != p.SnapshotID:
				fork(v.head.SnapshotID,
					fmt.Sprintf("metadata file %s's head %d%s to have the previous version's head %d%s (%s) as parent", v.file, v.head.SnapshotID, markerNote(v.head), p.SnapshotID, markerNote(p), prev.file),
					"parent "+parentText(v.head))
			case v.head.SequenceNumber <= p.SequenceNumber:
				fork(v.head.SnapshotID, fmt.Sprintf("metadata file %s's head %d sequence number above %d", v.file, v.head.SnapshotID, p.SequenceNumber), fmt.Sprint(v.head.SequenceNumber))
			}
		}
		prev = v
	}
}

func markerNote(s *table.Snapshot) string {
	if m := markerOf(s); m != "" {
		return " (marker " + m + ")"
	}
	return ""
}

func avroHeader(fs iceio.IO, path string) error {
	f, err := fs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b := make([]byte, headBytes)
	if _, err := io.ReadFull(f, b); err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	if !bytes.Equal(b, avroMagic) {
		return fmt.Errorf("not an Avro file (starts %q)", b)
	}
	return nil
}

// markerOf returns the marker a snapshot carries, or "".
func markerOf(s *table.Snapshot) string {
	if s.Summary == nil {
		return ""
	}
	return s.Summary.Properties[MarkerProperty]
}

// stateMarkers counts, per marker, the live data files of main's head
// (nil when the table has no snapshot yet).
func stateMarkers(meta table.Metadata, fs iceio.IO) (map[string]int, error) {
	head := meta.SnapshotByName(table.MainBranch)
	if head == nil || fs == nil {
		return nil, nil
	}
	mfs, err := head.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("manifest list %s: %w", head.ManifestList, err)
	}
	out := map[string]int{}
	for _, mf := range mfs {
		entries, err := mf.FetchEntries(fs, true)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", mf.FilePath(), err)
		}
		for _, e := range entries {
			base := path.Base(e.DataFile().FilePath())
			out[strings.TrimSuffix(base, path.Ext(base))]++
		}
	}
	return out, nil
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// inVersions says where along the metadata log marker was main's head,
// the evidence of whether a lost commit was ever recorded.
func inVersions(versions []version, marker string) string {
	for i, v := range versions {
		if v.head != nil && markerOf(v.head) == marker {
			next := "it is the last version"
			if i+1 < len(versions) && versions[i+1].head != nil {
				n := versions[i+1].head
				next = fmt.Sprintf("the next version %s has head %d, parent %s, sequence number %d", versions[i+1].file, n.SnapshotID, parentText(n), n.SequenceNumber)
			}
			return fmt.Sprintf("; it was main's head, snapshot %d (sequence number %d), in metadata file %s; %s", v.head.SnapshotID, v.head.SequenceNumber, v.file, next)
		}
	}
	return fmt.Sprintf("; it was main's head in none of the %d metadata-log versions read", len(versions))
}
