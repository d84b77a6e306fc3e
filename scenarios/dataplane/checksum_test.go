package dataplane

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestAddRowsMatchesAddBatch(t *testing.T) {
	var want Checksum
	want.AddRows(3, 100, 5000)
	if got := checksumOf(t, 3, 100, 5000, 777); got != want {
		t.Fatalf("AddBatch over generated batches %s, AddRows %s\n%v", got.Digest(), want.Digest(), Verify(want, got))
	}
}

func TestChecksumIsOrderIndependent(t *testing.T) {
	var whole, a, b Checksum
	whole.AddRows(5, 0, 3000)
	b.AddRows(5, 1000, 2000) // second half first
	a.AddRows(5, 0, 1000)
	b.Merge(a)
	if err := Verify(whole, b); err != nil {
		t.Fatal(err)
	}
}

// mutate rebuilds a generated batch with one cell of column col changed by f
// (which gets the builder and the original array and row), then checksums it.
func TestChecksumDetectsChanges(t *testing.T) {
	const seed, n = 11, 64
	var want Checksum
	want.AddRows(seed, 0, n)

	cases := []struct {
		name string
		col  string
		row  int
	}{
		{"flipped id bit", ColID, 3},
		{"timestamp +1µs", ColTS, 10},
		{"user id flipped", ColUserID, 0},
		{"event type changed", ColEventType, 5},
		{"country changed", ColCountry, 63},
		{"session byte changed", ColSession, 7},
		{"amount last bit", ColAmount, 8},
		{"score last bit", ColScore, 9},
		{"referrer null toggled", ColReferrer, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := generated(t, seed, n)
			bad := changeCell(t, rec, c.col, c.row)
			var got Checksum
			if err := got.AddBatch(bad); err != nil {
				t.Fatal(err)
			}
			err := Verify(want, got)
			if !errors.Is(err, ErrChecksumMismatch) {
				t.Fatalf("changed %s row %d: Verify = %v, want a mismatch", c.col, c.row, err)
			}
		})
	}

	t.Run("swapped values between rows", func(t *testing.T) {
		rec := generated(t, seed, n)
		// Swap the amounts of rows 0 and 1: the column's multiset of values
		// is unchanged, only their rows differ.
		bad := rebuild(t, rec, ColAmount, func(b array.Builder, a arrow.Array, i int) {
			j := i
			switch i {
			case 0:
				j = 1
			case 1:
				j = 0
			}
			b.(*array.Float64Builder).Append(a.(*array.Float64).Value(j))
		})
		var got Checksum
		if err := got.AddBatch(bad); err != nil {
			t.Fatal(err)
		}
		if err := Verify(want, got); !errors.Is(err, ErrChecksumMismatch) {
			t.Fatalf("swapped amounts: Verify = %v, want a mismatch", err)
		}
	})

	t.Run("duplicated row", func(t *testing.T) {
		got := checksumOf(t, seed, 0, n, n)
		extra := checksumOf(t, seed, 5, 1, 1)
		got.Merge(extra)
		if err := Verify(want, got); !errors.Is(err, ErrChecksumMismatch) {
			t.Fatalf("duplicated row: Verify = %v, want a mismatch", err)
		}
	})
}

func TestChecksumRejectsWrongSchema(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: ColID, Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(1)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var c Checksum
	if err := c.AddBatch(rec); !errors.Is(err, ErrBadBatch) {
		t.Fatalf("AddBatch of an id-only batch = %v, want ErrBadBatch", err)
	}
}

func generated(t *testing.T, seed uint64, n int64) arrow.RecordBatch {
	t.Helper()
	rec := buildBatch(memory.DefaultAllocator, seed, 0, n)
	t.Cleanup(rec.Release)
	return rec
}

// changeCell returns rec with one cell of col changed minimally.
func changeCell(t *testing.T, rec arrow.RecordBatch, col string, row int) arrow.RecordBatch {
	t.Helper()
	return rebuild(t, rec, col, func(b array.Builder, a arrow.Array, i int) {
		change := i == row
		switch a := a.(type) {
		case *array.Int64:
			v := a.Value(i)
			if change {
				v ^= 1 << 17
			}
			b.(*array.Int64Builder).Append(v)
		case *array.Timestamp:
			v := a.Value(i)
			if change {
				v++
			}
			b.(*array.TimestampBuilder).Append(v)
		case *array.Float64:
			v := a.Value(i)
			if change {
				v = nextafter(v)
			}
			b.(*array.Float64Builder).Append(v)
		case *array.String:
			sb := b.(*array.StringBuilder)
			switch {
			case change && a.IsNull(i):
				sb.Append("x")
			case change && col == ColReferrer:
				sb.AppendNull()
			case a.IsNull(i):
				sb.AppendNull()
			case change:
				s := []byte(a.Value(i))
				s[len(s)-1] ^= 1
				sb.Append(string(s))
			default:
				sb.Append(a.Value(i))
			}
		default:
			t.Fatalf("unexpected column type %T", a)
		}
	})
}

// rebuild copies rec, replacing column col by what set appends per row.
func rebuild(t *testing.T, rec arrow.RecordBatch, col string, set func(b array.Builder, a arrow.Array, i int)) arrow.RecordBatch {
	t.Helper()
	idx := rec.Schema().FieldIndices(col)[0]
	a := rec.Column(idx)
	b := array.NewBuilder(memory.DefaultAllocator, a.DataType())
	defer b.Release()
	for i := range a.Len() {
		set(b, a, i)
	}
	repl := b.NewArray()
	defer repl.Release()
	cols := append([]arrow.Array(nil), rec.Columns()...)
	cols[idx] = repl
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	t.Cleanup(out.Release)
	return out
}

func nextafter(v float64) float64 {
	if v == 0 {
		return 5e-324
	}
	return v * (1 + 1e-15)
}
