package catalog

import (
	"bytes"
	"testing"
)

// FuzzWALChangesDecode checks that decoding a record payload never panics
// and that whatever it accepts encodes back to exactly the same bytes.
func FuzzWALChangesDecode(f *testing.F) {
	f.Add(appendWALChanges(nil, []walChange{
		{bucket: bucketTables, key: []byte("ns\x00t"), val: []byte("file:///w/ns/t/metadata/00000-x.metadata.json")},
		{bucket: bucketNamespaces, key: []byte("ns")},
		{bucket: bucketViews, key: []byte("ns\x00v"), val: []byte{}},
	}))
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{1, 3, 1, 'a', 1, 'b'})
	f.Fuzz(func(t *testing.T, p []byte) {
		changes, err := decodeWALChanges(p)
		if err != nil {
			return
		}
		if got := appendWALChanges(nil, changes); !bytes.Equal(got, p) {
			t.Fatalf("decoded %d changes from %x, which encode to %x", len(changes), p, got)
		}
	})
}

// TestWALChangesRoundTrip: puts, an empty value and deletes come back as
// they were written, in order; a delete stays distinct from an empty put.
func TestWALChangesRoundTrip(t *testing.T) {
	in := []walChange{
		{bucket: bucketTables, key: []byte("a"), val: []byte("loc")},
		{bucket: bucketTables, key: []byte("b"), val: []byte{}},
		{bucket: bucketNamespaces, key: []byte("c")},
	}
	out, err := decodeWALChanges(appendWALChanges(nil, in))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d changes, want %d", len(out), len(in))
	}
	for i := range in {
		if !bytes.Equal(out[i].bucket, in[i].bucket) || !bytes.Equal(out[i].key, in[i].key) ||
			!bytes.Equal(out[i].val, in[i].val) || (out[i].val == nil) != (in[i].val == nil) {
			t.Errorf("change %d = %+v, want %+v", i, out[i], in[i])
		}
	}
}
