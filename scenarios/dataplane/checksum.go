package dataplane

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrChecksumMismatch is returned when what was read differs from what was
// written.
var ErrChecksumMismatch = errors.New("dataplane: checksum mismatch")

// ErrBadBatch is returned for a batch that lacks an events column or holds
// it in a type the checksum does not know.
var ErrBadBatch = errors.New("dataplane: batch does not hold the events schema")

// ColumnSum is the checksum of one column.
type ColumnSum struct {
	Values int64  // non-null values seen
	Nulls  int64  // nulls seen
	Hash   uint64 // Σ mix(row id, column, value), wrapping
}

// Checksum is an order-independent checksum of every events column: per
// column, the count of values and nulls and a wrapping sum over rows of a
// mix of (row id, column, value). Summing makes it independent of the order
// batches and rows arrive in (a scan returns files in any order) while any
// changed value, a value moved to another row, a lost or a duplicated row
// changes it with probability 1 − 2⁻⁶⁴.
//
// The zero value is an empty checksum. A Checksum is not safe for concurrent
// use; combine per-goroutine checksums with Merge.
type Checksum struct {
	Rows int64
	Cols [9]ColumnSum // in Columns order
}

// nullHash stands in for the value of a null.
const nullHash = 0x6e756c6c6e756c6c

// term is one row's contribution to column col.
func term(id int64, col int, value uint64) uint64 {
	return mix64(value ^ mix64(uint64(id)*0x100000001b3+uint64(col+1)))
}

// fnv1a is 64-bit FNV-1a over b.
func fnv1a[T string | []byte](b T) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(b); i++ {
		h ^= uint64(b[i])
		h *= 0x100000001b3
	}
	return h
}

// AddRows adds rows [from, from+n) of seed as the generator makes them,
// without building Arrow arrays: the expected checksum of what a Reader
// over the same range writes.
func (c *Checksum) AddRows(seed uint64, from, n int64) {
	for i := from; i < from+n; i++ {
		e := Row(seed, i)
		c.add(0, e.ID, uint64(e.ID))
		c.add(1, e.ID, uint64(e.TSMicros))
		c.add(2, e.ID, uint64(e.UserID))
		c.add(3, e.ID, fnv1a(e.EventType))
		c.add(4, e.ID, fnv1a(e.Country))
		c.add(5, e.ID, fnv1a(e.Session[:]))
		c.add(6, e.ID, math.Float64bits(e.Amount))
		c.add(7, e.ID, math.Float64bits(e.Score))
		if e.ReferrerNull {
			c.addNull(8, e.ID)
		} else {
			c.add(8, e.ID, fnv1a(e.Referrer))
		}
	}
	c.Rows += n
}

func (c *Checksum) add(col int, id int64, v uint64) {
	s := &c.Cols[col]
	s.Values++
	s.Hash += term(id, col, v)
}

func (c *Checksum) addNull(col int, id int64) {
	s := &c.Cols[col]
	s.Nulls++
	s.Hash += term(id, col, nullHash)
}

// AddBatch adds every row of rec, finding the events columns by name (a
// scan may return them in any order, in string or large-string form).
func (c *Checksum) AddBatch(rec arrow.RecordBatch) error {
	sc := rec.Schema()
	cols := make([]arrow.Array, len(Columns))
	for k, name := range Columns {
		idx := sc.FieldIndices(name)
		if len(idx) != 1 {
			return fmt.Errorf("%w: column %q appears %d times", ErrBadBatch, name, len(idx))
		}
		cols[k] = rec.Column(idx[0])
	}
	ids, ok := cols[0].(*array.Int64)
	if !ok {
		return fmt.Errorf("%w: column %s is %s, want int64", ErrBadBatch, ColID, cols[0].DataType())
	}
	if ids.NullN() > 0 {
		return fmt.Errorf("%w: column %s holds %d nulls", ErrChecksumMismatch, ColID, ids.NullN())
	}
	n := int(rec.NumRows())
	idv := ids.Int64Values()
	for k, arr := range cols {
		value, err := valueHasher(arr)
		if err != nil {
			return fmt.Errorf("%w: column %s: %v", ErrBadBatch, Columns[k], err)
		}
		for i := range n {
			if arr.IsNull(i) {
				c.addNull(k, idv[i])
				continue
			}
			c.add(k, idv[i], value(i))
		}
	}
	c.Rows += int64(n)
	return nil
}

// valueHasher returns the function giving row i's value hash for arr, the
// same hash AddRows uses for the generated value.
func valueHasher(arr arrow.Array) (func(i int) uint64, error) {
	switch a := arr.(type) {
	case *array.Int64:
		return func(i int) uint64 { return uint64(a.Value(i)) }, nil
	case *array.Timestamp:
		if u := a.DataType().(*arrow.TimestampType).Unit; u != arrow.Microsecond {
			return nil, fmt.Errorf("timestamp unit %s, want µs", u)
		}
		return func(i int) uint64 { return uint64(a.Value(i)) }, nil
	case *array.Float64:
		return func(i int) uint64 { return math.Float64bits(a.Value(i)) }, nil
	case *array.String:
		return func(i int) uint64 { return fnv1a(a.Value(i)) }, nil
	case *array.LargeString:
		return func(i int) uint64 { return fnv1a(a.Value(i)) }, nil
	case *array.StringView:
		return func(i int) uint64 { return fnv1a(a.Value(i)) }, nil
	default:
		return nil, fmt.Errorf("type %s", arr.DataType())
	}
}

// Merge adds o into c.
func (c *Checksum) Merge(o Checksum) {
	c.Rows += o.Rows
	for k := range c.Cols {
		c.Cols[k].Values += o.Cols[k].Values
		c.Cols[k].Nulls += o.Cols[k].Nulls
		c.Cols[k].Hash += o.Cols[k].Hash
	}
}

// Verify returns nil when got equals want, else an error wrapping
// ErrChecksumMismatch that names every differing column.
func Verify(want, got Checksum) error {
	var diffs []string
	if want.Rows != got.Rows {
		diffs = append(diffs, fmt.Sprintf("rows %d, want %d", got.Rows, want.Rows))
	}
	for k, name := range Columns {
		w, g := want.Cols[k], got.Cols[k]
		if w != g {
			diffs = append(diffs, fmt.Sprintf("%s (values %d/%d, nulls %d/%d, hash %016x/%016x got/want)",
				name, g.Values, w.Values, g.Nulls, w.Nulls, g.Hash, w.Hash))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrChecksumMismatch, strings.Join(diffs, "; "))
}

// Digest folds the whole checksum into one value, for a result line.
func (c Checksum) Digest() string {
	h := mix64(uint64(c.Rows))
	for k, s := range c.Cols {
		h = mix64(h ^ uint64(k) ^ mix64(uint64(s.Values)) ^ mix64(uint64(s.Nulls)<<1) ^ s.Hash)
	}
	return fmt.Sprintf("%016x", h)
}
