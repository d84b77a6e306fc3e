package catalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWALSegmentPowerLoss simulates a power loss: the segment records its
// flush boundary (synced), the file is cut back to it, and part of the next,
// unflushed frame is left behind as a torn tail. Every frame acknowledged
// (appended before a successful sync) must come back, in order, and the
// torn tail must be cleared so that later appends decode.
func TestWALSegmentPowerLoss(t *testing.T) {
	for _, torn := range []int{0, 1, walHeaderSize - 1, walHeaderSize, walHeaderSize + 3} {
		t.Run(fmt.Sprintf("torn%d", torn), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "0000000000000001.wal")
			s, recs, err := openWALSegment(path, 1)
			if err != nil || len(recs) != 0 {
				t.Fatalf("open empty: %d records, %v", len(recs), err)
			}
			var acked [][]byte
			for g := 0; g < 50; g++ {
				group := [][]byte{[]byte(fmt.Sprintf("group %d a", g)), []byte(fmt.Sprintf("group %d b", g))}
				if _, err := s.append(group...); err != nil {
					t.Fatal(err)
				}
				if err := s.sync(); err != nil {
					t.Fatal(err)
				}
				acked = append(acked, group...)
			}
			synced := s.synced
			// Unacknowledged: appended, never synced.
			if _, err := s.append([]byte("never acknowledged, long enough to tear")); err != nil {
				t.Fatal(err)
			}
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			// The power loss: what was written after the last sync is lost,
			// except a torn prefix of it.
			if err := os.Truncate(path, synced+int64(torn)); err != nil {
				t.Fatal(err)
			}

			start := time.Now()
			s, recs, err = openWALSegment(path, 1)
			t.Logf("recovered %d records in %v", len(recs), time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(acked) {
				t.Fatalf("recovered %d records, want the %d acknowledged", len(recs), len(acked))
			}
			for i, r := range recs {
				if r.seq != uint64(i+1) || !bytes.Equal(r.payload, acked[i]) {
					t.Fatalf("record %d = seq %d %q, want seq %d %q", i, r.seq, r.payload, i+1, acked[i])
				}
			}
			// Appends after recovery follow the cut, not the torn bytes.
			if first, err := s.append([]byte("after recovery")); err != nil || first != uint64(len(acked)+1) {
				t.Fatalf("append after recovery: seq %d, %v; want %d", first, err, len(acked)+1)
			}
			if err := s.sync(); err != nil {
				t.Fatal(err)
			}
			s.close()
			_, recs, err = openWALSegment(path, 1)
			if err != nil || len(recs) != len(acked)+1 || string(recs[len(recs)-1].payload) != "after recovery" {
				t.Fatalf("reopen after recovery: %d records, %v", len(recs), err)
			}
		})
	}
}

func TestWALSegmentWrongFirstSeq(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg.wal")
	s, _, err := openWALSegment(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.append([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.sync(); err != nil {
		t.Fatal(err)
	}
	s.close()
	if _, _, err := openWALSegment(path, 11); err == nil {
		t.Fatal("a segment opened with the wrong first seq")
	}
}

// BenchmarkWALRecover measures recovering a segment of 100k records of 256
// bytes (about the size of one create's pointer change); ns/op is the
// recovery time of all 100k.
func BenchmarkWALRecover(b *testing.B) {
	path := filepath.Join(b.TempDir(), "seg.wal")
	s, _, err := openWALSegment(path, 1)
	if err != nil {
		b.Fatal(err)
	}
	payload := bytes.Repeat([]byte{'m'}, 256)
	const n = 100_000
	batch := make([][]byte, 1000)
	for i := range batch {
		batch[i] = payload
	}
	for i := 0; i < n/len(batch); i++ {
		if _, err := s.append(batch...); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.sync(); err != nil {
		b.Fatal(err)
	}
	s.close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, recs, err := openWALSegment(path, 1)
		if err != nil || len(recs) != n {
			b.Fatalf("recovered %d, %v", len(recs), err)
		}
		s.close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n/10_000), "ns/10k-records")
}
