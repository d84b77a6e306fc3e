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

// colSalt separates the columns' terms.
var colSalt = func() (out [9]uint64) {
	for k := range out {
		out[k] = mix64(uint64(k+1) * 0x9e3779b97f4a7c15)
	}
	return out
}()

// rowKey is the per-row part of every column's term.
func rowKey(id int64) uint64 { return mix64(uint64(id) * 0x100000001b3) }

// term is one row's contribution to column col, given the row's key.
func term(key uint64, col int, value uint64) uint64 {
	return mix64(value ^ key ^ colSalt[col])
}

// strHash hashes a string eight bytes at a time (the bytes are read
// little-endian, the tail zero-padded, the length mixed in).
func strHash[T string | []byte](b T) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for len(b) >= 8 {
		v := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		h = mix64(h ^ v)
		b = b[8:]
	}
	var tail uint64
	for i := 0; i < len(b); i++ {
		tail |= uint64(b[i]) << (8 * i)
	}
	return mix64(h ^ tail ^ 0xff)
}

// AddRows adds rows [from, from+n) of seed as the generator makes them,
// without building Arrow arrays: the expected checksum of what a Reader
// over the same range writes.
func (c *Checksum) AddRows(seed uint64, from, n int64) {
	for i := from; i < from+n; i++ {
		e := Row(seed, i)
		k := rowKey(e.ID)
		c.add(0, k, uint64(e.ID))
		c.add(1, k, uint64(e.TSMicros))
		c.add(2, k, uint64(e.UserID))
		c.add(3, k, strHash(e.EventType))
		c.add(4, k, strHash(e.Country))
		c.add(5, k, strHash(e.Session[:]))
		c.add(6, k, math.Float64bits(e.Amount))
		c.add(7, k, math.Float64bits(e.Score))
		if e.ReferrerNull {
			c.add(8, k, nullHash)
			c.Cols[8].Values--
			c.Cols[8].Nulls++
		} else {
			c.add(8, k, strHash(e.Referrer))
		}
	}
	c.Rows += n
}

func (c *Checksum) add(col int, key uint64, v uint64) {
	s := &c.Cols[col]
	s.Values++
	s.Hash += term(key, col, v)
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
	keys := make([]uint64, n)
	for i, id := range ids.Int64Values() {
		keys[i] = rowKey(id)
	}
	for k, arr := range cols {
		if err := c.addColumn(k, arr, keys); err != nil {
			return fmt.Errorf("%w: column %s: %v", ErrBadBatch, Columns[k], err)
		}
	}
	c.Rows += int64(n)
	return nil
}

// addColumn adds column k of a batch whose rows have the given keys. Each
// type has its own loop: this is the scan's verification cost per value.
func (c *Checksum) addColumn(k int, arr arrow.Array, keys []uint64) error {
	s := &c.Cols[k]
	salt := colSalt[k]
	nulls := arr.NullN() > 0
	each := func(value func(i int) uint64) {
		for i, key := range keys {
			if nulls && arr.IsNull(i) {
				s.Nulls++
				s.Hash += mix64(nullHash ^ key ^ salt)
				continue
			}
			s.Values++
			s.Hash += mix64(value(i) ^ key ^ salt)
		}
	}
	switch a := arr.(type) {
	case *array.Int64:
		v := a.Int64Values()
		if !nulls {
			for i, key := range keys {
				s.Hash += mix64(uint64(v[i]) ^ key ^ salt)
			}
			s.Values += int64(len(keys))
			return nil
		}
		each(func(i int) uint64 { return uint64(v[i]) })
	case *array.Timestamp:
		if u := a.DataType().(*arrow.TimestampType).Unit; u != arrow.Microsecond {
			return fmt.Errorf("timestamp unit %s, want µs", u)
		}
		v := a.TimestampValues()
		each(func(i int) uint64 { return uint64(v[i]) })
	case *array.Float64:
		v := a.Float64Values()
		each(func(i int) uint64 { return math.Float64bits(v[i]) })
	case *array.String:
		each(func(i int) uint64 { return strHash(a.Value(i)) })
	case *array.LargeString:
		each(func(i int) uint64 { return strHash(a.Value(i)) })
	case *array.StringView:
		each(func(i int) uint64 { return strHash(a.Value(i)) })
	default:
		return fmt.Errorf("type %s", arr.DataType())
	}
	return nil
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
