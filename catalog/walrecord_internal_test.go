package catalog

import (
	"bytes"
	"errors"
	"testing"
)

func TestWALRecordRoundTrip(t *testing.T) {
	var buf []byte
	want := []walRecord{{seq: 7, payload: []byte("one")}, {seq: 8, payload: nil}, {seq: 9, payload: bytes.Repeat([]byte{0xab}, 5000)}}
	for _, r := range want {
		var err error
		if buf, err = appendWALRecord(buf, r); err != nil {
			t.Fatal(err)
		}
	}
	got, valid := decodeWALRecords(buf)
	if valid != len(buf) || len(got) != len(want) {
		t.Fatalf("decoded %d records, %d of %d bytes; want %d records, all bytes", len(got), valid, len(buf), len(want))
	}
	for i := range want {
		if got[i].seq != want[i].seq || !bytes.Equal(got[i].payload, want[i].payload) {
			t.Fatalf("record %d = seq %d %q, want seq %d %q", i, got[i].seq, got[i].payload, want[i].seq, want[i].payload)
		}
	}
}

// Every cut of the last frame, and every flipped bit in it, must end the
// valid prefix at the end of the frame before: a torn tail is never replayed.
func TestWALRecordTornTail(t *testing.T) {
	buf, _ := appendWALRecord(nil, walRecord{seq: 1, payload: []byte("durable")})
	whole := len(buf)
	buf, _ = appendWALRecord(buf, walRecord{seq: 2, payload: []byte("torn by a power loss")})
	for cut := whole; cut < len(buf); cut++ {
		recs, valid := decodeWALRecords(buf[:cut])
		if len(recs) != 1 || valid != whole {
			t.Fatalf("cut at %d: %d records, valid %d; want 1 record, valid %d", cut, len(recs), valid, whole)
		}
	}
	for bit := whole * 8; bit < len(buf)*8; bit++ {
		flipped := bytes.Clone(buf)
		flipped[bit/8] ^= 1 << (bit % 8)
		recs, valid := decodeWALRecords(flipped)
		if len(recs) != 1 || valid != whole {
			t.Fatalf("bit %d flipped: %d records, valid %d; want 1 record, valid %d", bit, len(recs), valid, whole)
		}
	}
	if _, _, err := decodeWALRecord(buf[whole : len(buf)-1]); !errors.Is(err, errWALTorn) {
		t.Fatalf("short frame: err %v, want errWALTorn", err)
	}
}

// A frame whose seq does not follow its predecessor's (a stale frame left
// from an earlier use of the segment) ends the valid prefix.
func TestWALRecordSeqGap(t *testing.T) {
	buf, _ := appendWALRecord(nil, walRecord{seq: 1, payload: []byte("a")})
	whole := len(buf)
	buf, _ = appendWALRecord(buf, walRecord{seq: 3, payload: []byte("stale")})
	if recs, valid := decodeWALRecords(buf); len(recs) != 1 || valid != whole {
		t.Fatalf("%d records, valid %d; want 1, %d", len(recs), valid, whole)
	}
}

func TestWALRecordTooLarge(t *testing.T) {
	if _, err := appendWALRecord(nil, walRecord{payload: make([]byte, walMaxPayload+1)}); err == nil {
		t.Fatal("a payload over walMaxPayload was accepted")
	}
}

// FuzzWALRecordDecode: the decoder never panics, never reads past its
// input, and whatever it accepts re-encodes to exactly the bytes it took.
func FuzzWALRecordDecode(f *testing.F) {
	seed, _ := appendWALRecord(nil, walRecord{seq: 42, payload: []byte("group")})
	f.Add(seed)
	f.Add(seed[:len(seed)-1])
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, walHeaderSize))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, valid := decodeWALRecords(data)
		if valid < 0 || valid > len(data) {
			t.Fatalf("valid prefix %d outside [0,%d]", valid, len(data))
		}
		var again []byte
		for _, r := range recs {
			var err error
			if again, err = appendWALRecord(again, r); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(again, data[:valid]) {
			t.Fatalf("re-encoding %d accepted records gives %d bytes that differ from the %d-byte valid prefix", len(recs), len(again), valid)
		}
	})
}
