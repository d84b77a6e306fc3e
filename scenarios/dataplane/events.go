package dataplane

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
)

// The events table: one row per synthetic product event. The columns cover
// what a realistic fact table holds: a dense int64 key, a timestamp,
// high-cardinality ints and strings (users, sessions), low-cardinality
// strings (event type, country) that Parquet dictionary-encodes, doubles,
// and a nullable string.
const (
	ColID        = "id"         // int64, required: the row index, unique
	ColTS        = "ts"         // timestamptz (µs), required
	ColUserID    = "user_id"    // int64, required, ~10 M distinct
	ColEventType = "event_type" // string, required, 12 distinct
	ColCountry   = "country"    // string, required, 40 distinct
	ColSession   = "session_id" // string, required, 16 hex chars, ~unique
	ColAmount    = "amount"     // double, required, whole cents 0.00–9999.99
	ColScore     = "score"      // double, required, uniform in [0, 1)
	ColReferrer  = "referrer"   // string, optional: null in ~1 row of 4
)

// Columns lists the events columns in schema order.
var Columns = []string{ColID, ColTS, ColUserID, ColEventType, ColCountry, ColSession, ColAmount, ColScore, ColReferrer}

// epochMicros is the timestamp of row 0: 2026-01-01T00:00:00Z.
var epochMicros = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

var eventTypes = []string{
	"page_view", "click", "search", "add_to_cart", "remove_from_cart", "checkout",
	"purchase", "refund", "login", "logout", "signup", "share",
}

var countries = []string{
	"AR", "AT", "AU", "BE", "BR", "CA", "CH", "CL", "CN", "CO", "CZ", "DE", "DK", "EE",
	"ES", "FI", "FR", "GB", "GR", "HU", "IE", "IL", "IN", "IS", "IT", "JP", "KR", "LT",
	"LV", "MX", "NL", "NO", "NZ", "PL", "PT", "SE", "SG", "TR", "US", "ZA",
}

// referrers are 500 distinct URLs, built once.
var referrers = func() []string {
	hosts := []string{"news.example", "search.example", "social.example", "mail.example", "ads.example"}
	out := make([]string, 0, 500)
	for i := range 500 {
		out = append(out, fmt.Sprintf("https://%s/r/%03d?utm_source=katbench", hosts[i%len(hosts)], i))
	}
	return out
}()

// Schema returns the events table's Iceberg schema (field ids 1–9, in
// [Columns] order). Every call returns a new value.
func Schema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: ColID, Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: ColTS, Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
		iceberg.NestedField{ID: 3, Name: ColUserID, Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 4, Name: ColEventType, Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 5, Name: ColCountry, Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 6, Name: ColSession, Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 7, Name: ColAmount, Type: iceberg.PrimitiveTypes.Float64, Required: true},
		iceberg.NestedField{ID: 8, Name: ColScore, Type: iceberg.PrimitiveTypes.Float64, Required: true},
		iceberg.NestedField{ID: 9, Name: ColReferrer, Type: iceberg.PrimitiveTypes.String, Required: false},
	)
}

// arrowSchema is the Arrow form of [Schema] that the generator produces:
// required columns are non-nullable, so iceberg-go accepts the batches for
// the table as they are.
var arrowSchema = arrow.NewSchema([]arrow.Field{
	{Name: ColID, Type: arrow.PrimitiveTypes.Int64},
	{Name: ColTS, Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{Name: ColUserID, Type: arrow.PrimitiveTypes.Int64},
	{Name: ColEventType, Type: arrow.BinaryTypes.String},
	{Name: ColCountry, Type: arrow.BinaryTypes.String},
	{Name: ColSession, Type: arrow.BinaryTypes.String},
	{Name: ColAmount, Type: arrow.PrimitiveTypes.Float64},
	{Name: ColScore, Type: arrow.PrimitiveTypes.Float64},
	{Name: ColReferrer, Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// ArrowSchema returns the Arrow schema of the generated batches.
func ArrowSchema() *arrow.Schema { return arrowSchema }

// Event is one generated row. Referrer is "" when ReferrerNull is set.
type Event struct {
	ID           int64
	TSMicros     int64
	UserID       int64
	EventType    string
	Country      string
	Session      [16]byte // lowercase hex
	Amount       float64
	Score        float64
	Referrer     string
	ReferrerNull bool
}

// Row returns row i of the table generated from seed. It is a pure
// function of (seed, i): rows do not depend on batch boundaries or on the
// rows generated before them.
func Row(seed uint64, i int64) Event {
	h := mix64(seed ^ mix64(uint64(i)+0x9e3779b97f4a7c15))
	next := func() uint64 { h = mix64(h + 0x9e3779b97f4a7c15); return h }
	e := Event{ID: i}
	e.TSMicros = epochMicros + i*1000 + int64(next()%1000)
	e.UserID = int64(next() % 10_000_000)
	e.EventType = eventTypes[next()%uint64(len(eventTypes))]
	e.Country = countries[next()%uint64(len(countries))]
	s := next()
	const hexdigits = "0123456789abcdef"
	for k := range e.Session {
		e.Session[k] = hexdigits[(s>>(4*k))&0xf]
	}
	e.Amount = float64(next()%1_000_000) / 100
	e.Score = float64(next()>>11) / (1 << 53)
	r := next()
	if r%4 == 0 {
		e.ReferrerNull = true
	} else {
		e.Referrer = referrers[(r>>8)%uint64(len(referrers))]
	}
	return e
}

// mix64 is SplitMix64's finaliser: a fast bijective 64-bit mix.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ErrBadRange is returned for a negative row range or batch size.
var ErrBadRange = errors.New("dataplane: bad row range")

// Reader is an array.RecordReader over rows [from, from+n) of a seed, in
// batches of at most batchRows rows, built on demand. It records the time
// spent building batches, so a caller can tell generation from the work the
// batches feed. A Reader is not safe for concurrent use, except GenTime and
// WaitTime, which may be read at any time.
//
// A consumer that retains batches (iceberg-go's Transaction.Append queues
// up to 64 ahead of its Parquet writer) would let an unbounded Reader run
// ahead through the whole stream; [Reader.LimitLive] bounds how many of its
// batches may be referenced at once.
type Reader struct {
	refs      atomic.Int64
	mem       memory.Allocator
	live      *liveAllocator // nil: unbounded
	maxLive   int64          // batches that may be referenced at once
	maxBatch  int64          // bytes of the largest batch built so far
	seed      uint64
	next, end int64
	batchRows int64
	cur       arrow.RecordBatch
	gen       atomic.Int64 // nanoseconds spent building batches
	wait      atomic.Int64 // nanoseconds Next spent waiting for releases
	overruns  atomic.Int64 // waits that ran out of patience (LimitLive)
}

var _ array.RecordReader = (*Reader)(nil)

// NewReader returns a reader of rows [from, from+n) of seed in batches of
// batchRows. mem may be nil (the Go allocator).
func NewReader(mem memory.Allocator, seed uint64, from, n int64, batchRows int) (*Reader, error) {
	if from < 0 || n < 0 || batchRows < 1 {
		return nil, fmt.Errorf("%w: from %d, n %d, batch rows %d", ErrBadRange, from, n, batchRows)
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	r := &Reader{mem: mem, seed: seed, next: from, end: from + n, batchRows: int64(batchRows)}
	r.refs.Store(1)
	return r, nil
}

// LimitLive makes Next wait, before building a batch, until at most k-1
// batches of this reader are still referenced by anyone (their buffers
// not yet freed), so at most k exist at once. k < 1 is taken as 1. Call it
// before the first Next. A consumer that keeps batches (one that collects
// the whole stream, array.NewTableFromRecordReader) defeats it: Next then
// waits liveWaitPatience each time and goes on, counted by Overruns.
func (r *Reader) LimitLive(k int) {
	if r.live == nil {
		r.live = newLiveAllocator(r.mem)
		r.mem = r.live
	}
	r.maxLive = int64(max(k, 1))
}

// Retain adds a reference.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one frees the current batch.
func (r *Reader) Release() {
	if r.refs.Add(-1) == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

// Schema is [ArrowSchema].
func (r *Reader) Schema() *arrow.Schema { return arrowSchema }

// Next builds the next batch, releasing the previous one.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.next >= r.end {
		return false
	}
	if r.live != nil {
		w0 := time.Now()
		if !r.live.waitBelow((r.maxLive-1)*r.maxBatch, liveWaitPatience) {
			r.overruns.Add(1)
		}
		r.wait.Add(int64(time.Since(w0)))
	}
	t0 := time.Now()
	n := min(r.batchRows, r.end-r.next)
	r.cur = buildBatch(r.mem, r.seed, r.next, n)
	r.next += n
	r.gen.Add(int64(time.Since(t0)))
	if r.live != nil {
		r.maxBatch = max(r.maxBatch, batchBytes(r.cur))
	}
	return true
}

// batchBytes is the allocated size of a batch's buffers.
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		for _, b := range col.Data().Buffers() {
			if b != nil {
				n += int64(b.Cap())
			}
		}
	}
	return n
}

// RecordBatch returns the current batch, valid until the next call to Next.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: use RecordBatch (kept for array.RecordReader).
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// Err is always nil: generation cannot fail.
func (r *Reader) Err() error { return nil }

// GenTime is the time spent building batches so far.
func (r *Reader) GenTime() time.Duration { return time.Duration(r.gen.Load()) }

// WaitTime is the time Next has spent waiting for the consumer to release
// batches (always 0 without [Reader.LimitLive]).
func (r *Reader) WaitTime() time.Duration { return time.Duration(r.wait.Load()) }

// Overruns is how many times Next stopped waiting for the consumer after
// liveWaitPatience and built a batch beyond the LimitLive bound.
func (r *Reader) Overruns() int64 { return r.overruns.Load() }

// liveWaitPatience bounds one wait of a LimitLive reader: long enough for
// any write of a batch, short enough that a consumer that stopped freeing
// batches costs seconds, not a hang.
var liveWaitPatience = 10 * time.Second

// buildBatch builds rows [from, from+n) of seed.
func buildBatch(mem memory.Allocator, seed uint64, from, n int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, arrowSchema)
	defer b.Release()
	b.Reserve(int(n))
	id := b.Field(0).(*array.Int64Builder)
	ts := b.Field(1).(*array.TimestampBuilder)
	user := b.Field(2).(*array.Int64Builder)
	typ := b.Field(3).(*array.StringBuilder)
	country := b.Field(4).(*array.StringBuilder)
	session := b.Field(5).(*array.StringBuilder)
	amount := b.Field(6).(*array.Float64Builder)
	score := b.Field(7).(*array.Float64Builder)
	ref := b.Field(8).(*array.StringBuilder)
	session.ReserveData(int(n) * 16)
	for i := from; i < from+n; i++ {
		e := Row(seed, i)
		id.UnsafeAppend(e.ID)
		ts.UnsafeAppend(arrow.Timestamp(e.TSMicros))
		user.UnsafeAppend(e.UserID)
		typ.Append(e.EventType)
		country.Append(e.Country)
		session.BinaryBuilder.Append(e.Session[:])
		amount.UnsafeAppend(e.Amount)
		score.UnsafeAppend(e.Score)
		if e.ReferrerNull {
			ref.AppendNull()
		} else {
			ref.Append(e.Referrer)
		}
	}
	return b.NewRecordBatch()
}
