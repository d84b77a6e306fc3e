package dataplane

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// checksumOf reads every batch of a reader over rows [from, from+n) of seed
// and returns its checksum.
func checksumOf(t *testing.T, seed uint64, from, n int64, batch int) Checksum {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	r, err := NewReader(mem, seed, from, n, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var c Checksum
	for r.Next() {
		if err := c.AddBatch(r.RecordBatch()); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestGeneratorDeterministicAcrossBatchSizes(t *testing.T) {
	want := checksumOf(t, 7, 0, 10_000, 10_000)
	for _, batch := range []int{1, 333, 4096, 20_000} {
		if got := checksumOf(t, 7, 0, 10_000, batch); got != want {
			t.Errorf("batch %d: checksum %s, want %s", batch, got.Digest(), want.Digest())
		}
	}
	if got := checksumOf(t, 8, 0, 10_000, 4096); got == want {
		t.Errorf("seed 8 gave the same checksum as seed 7")
	}
}

func TestGeneratorRowsArePureFunctions(t *testing.T) {
	for _, i := range []int64{0, 1, 999, 1 << 40} {
		if a, b := Row(42, i), Row(42, i); a != b {
			t.Errorf("Row(42, %d) differs between calls: %+v vs %+v", i, a, b)
		}
	}
	if Row(42, 5) == Row(43, 5) {
		t.Errorf("rows of different seeds are equal")
	}
}

func TestGeneratorShape(t *testing.T) {
	const n = 20_000
	types, countries, nulls := map[string]bool{}, map[string]bool{}, 0
	users := map[int64]bool{}
	var lastTS int64
	for i := range int64(n) {
		e := Row(1, i)
		if e.ID != i {
			t.Fatalf("row %d has id %d", i, e.ID)
		}
		if e.TSMicros <= lastTS && i > 0 {
			t.Fatalf("row %d timestamp %d not after %d", i, e.TSMicros, lastTS)
		}
		lastTS = e.TSMicros
		types[e.EventType] = true
		countries[e.Country] = true
		users[e.UserID] = true
		if e.ReferrerNull {
			nulls++
		}
		if e.Amount < 0 || e.Amount >= 10_000 || e.Score < 0 || e.Score >= 1 {
			t.Fatalf("row %d out of range: amount %v score %v", i, e.Amount, e.Score)
		}
	}
	if len(types) != len(eventTypes) || len(countries) != len(countries) {
		t.Errorf("low-cardinality columns: %d types, %d countries", len(types), len(countries))
	}
	if len(users) < n*99/100 {
		t.Errorf("user_id is not high-cardinality: %d distinct in %d rows", len(users), n)
	}
	if nulls < n/5 || nulls > n*3/10 {
		t.Errorf("referrer nulls %d of %d, want about a quarter", nulls, n)
	}
}

func TestReaderRejectsBadRange(t *testing.T) {
	for _, c := range []struct {
		from, n int64
		batch   int
	}{{-1, 1, 1}, {0, -1, 1}, {0, 1, 0}} {
		if _, err := NewReader(nil, 1, c.from, c.n, c.batch); err == nil {
			t.Errorf("NewReader(%d, %d, %d) accepted", c.from, c.n, c.batch)
		}
	}
}

func TestReaderBatches(t *testing.T) {
	r, err := NewReader(nil, 1, 10, 1000, 300)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var sizes []int64
	first := int64(-1)
	for r.Next() {
		rec := r.RecordBatch()
		if first < 0 {
			first = rec.Column(0).(interface{ Value(int) int64 }).Value(0)
		}
		sizes = append(sizes, rec.NumRows())
	}
	if len(sizes) != 4 || sizes[3] != 100 || first != 10 {
		t.Errorf("batches %v, first id %d; want [300 300 300 100] from id 10", sizes, first)
	}
	if r.GenTime() <= 0 {
		t.Errorf("GenTime %v after generating", r.GenTime())
	}
}
