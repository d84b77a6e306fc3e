package s3_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nordisk/katbench/transport/s3"
)

// encodeAWSChunked frames payload the way SigV4 streaming uploads do.
func encodeAWSChunked(payload []byte, chunk int, signed bool, trailer string) []byte {
	var b bytes.Buffer
	ext := func() string {
		if signed {
			return ";chunk-signature=" + strings.Repeat("a", 64)
		}
		return ""
	}
	for len(payload) > 0 {
		n := min(chunk, len(payload))
		fmt.Fprintf(&b, "%x%s\r\n", n, ext())
		b.Write(payload[:n])
		b.WriteString("\r\n")
		payload = payload[n:]
	}
	fmt.Fprintf(&b, "0%s\r\n", ext())
	if trailer != "" {
		b.WriteString(trailer + "\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

func TestDecodeAWSChunked(t *testing.T) {
	payload := bytes.Repeat([]byte("katbench"), 10000)
	for _, tc := range []struct {
		name    string
		signed  bool
		trailer string
		chunk   int
	}{
		{"signed", true, "", 8192},
		{"unsigned trailer", false, "x-amz-checksum-crc32c:AAAAAA==", 65536},
		{"one byte chunks", true, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := payload
			if tc.chunk == 1 {
				p = payload[:300]
			}
			got, err := s3.DecodeAWSChunked(bytes.NewReader(encodeAWSChunked(p, tc.chunk, tc.signed, tc.trailer)), int64(len(p)))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !bytes.Equal(got, p) {
				t.Fatalf("decoded %d bytes, want the %d encoded", len(got), len(p))
			}
		})
	}
	for _, bad := range []string{
		"",
		"zz\r\nabc\r\n0\r\n\r\n",
		"5\r\nab\r\n",
		"3\r\nabcXY0\r\n\r\n",
		"-1\r\n\r\n",
		strings.Repeat("1", 5000),
		"7fffffffffffffff\r\nabc",
	} {
		if _, err := s3.DecodeAWSChunked(strings.NewReader(bad), -1); err == nil {
			t.Errorf("decode %q: no error", bad)
		} else if !errors.Is(err, s3.ErrChunkedBody) && !errors.Is(err, s3.ErrTooLarge) {
			t.Errorf("decode %q: %v is neither ErrChunkedBody nor ErrTooLarge", bad, err)
		}
	}
}

// FuzzDecodeAWSChunked: any input either fails cleanly or decodes to a
// payload that re-encodes and decodes to itself.
func FuzzDecodeAWSChunked(f *testing.F) {
	f.Add(encodeAWSChunked([]byte("hello world"), 4, true, ""))
	f.Add(encodeAWSChunked([]byte("hello"), 100, false, "x-amz-checksum-crc32:AAAA"))
	f.Add([]byte("0\r\n\r\n"))
	f.Add([]byte("ffffffff\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := s3.DecodeAWSChunked(bytes.NewReader(in), -1)
		if err != nil {
			return
		}
		again, err := s3.DecodeAWSChunked(bytes.NewReader(encodeAWSChunked(got, 7, true, "")), int64(len(got)))
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("re-encoded payload of %d bytes decodes to %d bytes, %v", len(got), len(again), err)
		}
	})
}
