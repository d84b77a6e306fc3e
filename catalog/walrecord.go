package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// A walRecord is one frame of the catalog's write-ahead commit log: the
// encoded changes of one committed group, numbered by seq. The log is the
// only thing a group's acknowledgement depends on, so a reader must be able
// to tell a whole frame from one that a crash or power loss cut short.
//
// Frame layout, little-endian:
//
//	[4] payload length n
//	[4] CRC32C (Castagnoli) over seq and payload
//	[8] seq
//	[n] payload
//
// A frame is written by one append and becomes durable with the flush that
// follows it; a frame whose bytes are not all there, or whose checksum does
// not match, is a torn tail and is never replayed.
type walRecord struct {
	seq     uint64
	payload []byte
}

// walHeaderSize is the fixed part of a frame.
const walHeaderSize = 16

// walMaxPayload bounds one frame's payload, so a corrupt length can never
// make a reader allocate without limit.
const walMaxPayload = 64 << 20

var walCRC = crc32.MakeTable(crc32.Castagnoli)

// errWALTorn reports a frame cut short or with a wrong checksum: the end of
// what the log durably holds.
var errWALTorn = errors.New("catalog: write-ahead log: torn record")

// appendWALRecord appends r's frame to dst and returns the extended slice.
// It fails only for a payload larger than walMaxPayload.
func appendWALRecord(dst []byte, r walRecord) ([]byte, error) {
	if len(r.payload) > walMaxPayload {
		return dst, fmt.Errorf("catalog: write-ahead log: record of %d bytes exceeds %d", len(r.payload), walMaxPayload)
	}
	var h [walHeaderSize]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(r.payload)))
	binary.LittleEndian.PutUint64(h[8:16], r.seq)
	crc := crc32.Update(0, walCRC, h[8:16])
	crc = crc32.Update(crc, walCRC, r.payload)
	binary.LittleEndian.PutUint32(h[4:8], crc)
	dst = append(dst, h[:]...)
	return append(dst, r.payload...), nil
}

// decodeWALRecord decodes the frame at the start of buf and returns it with
// the number of bytes it took. The record's payload aliases buf. A frame
// that is incomplete, longer than walMaxPayload or fails its checksum yields
// errWALTorn and n == 0; decodeWALRecord never panics on any input.
func decodeWALRecord(buf []byte) (r walRecord, n int, err error) {
	if len(buf) < walHeaderSize {
		return walRecord{}, 0, errWALTorn
	}
	size := binary.LittleEndian.Uint32(buf[0:4])
	if size > walMaxPayload || uint64(len(buf)-walHeaderSize) < uint64(size) {
		return walRecord{}, 0, errWALTorn
	}
	end := walHeaderSize + int(size)
	crc := crc32.Update(0, walCRC, buf[8:16])
	crc = crc32.Update(crc, walCRC, buf[walHeaderSize:end])
	if crc != binary.LittleEndian.Uint32(buf[4:8]) {
		return walRecord{}, 0, errWALTorn
	}
	return walRecord{seq: binary.LittleEndian.Uint64(buf[8:16]), payload: buf[walHeaderSize:end:end]}, end, nil
}

// decodeWALRecords decodes the frames of one log segment in order and
// returns them with the length of the valid prefix. Decoding stops at the
// first torn frame, and at a frame whose seq does not follow its
// predecessor's by one: everything from there on is a tail the log does not
// durably hold, to be truncated away by the recovery, never replayed.
func decodeWALRecords(buf []byte) (recs []walRecord, valid int) {
	for valid < len(buf) {
		r, n, err := decodeWALRecord(buf[valid:])
		if err != nil {
			break
		}
		if len(recs) > 0 && r.seq != recs[len(recs)-1].seq+1 {
			break
		}
		recs = append(recs, r)
		valid += n
	}
	return recs, valid
}
