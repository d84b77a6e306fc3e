package s3

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxControlObject is the largest object the control server stores. It
// holds everything in memory, so a bigger body is refused, not buffered.
const MaxControlObject = 1 << 30

// ErrChunkedBody reports a malformed aws-chunked request body.
var ErrChunkedBody = errors.New("malformed aws-chunked body")

// ErrTooLarge reports a body over MaxControlObject.
var ErrTooLarge = errors.New("object too large for the control server")

// maxPrealloc bounds what a body's announced length may reserve up front;
// beyond it buffers grow as bytes actually arrive.
const maxPrealloc = 64 << 20

// maxChunkLine bounds one chunk header or trailer line, so a body without
// line breaks cannot make the decoder buffer without limit.
const maxChunkLine = 4096

// DecodeAWSChunked removes aws-chunked framing (SigV4 streaming uploads,
// signed or unsigned, with or without trailers) from r and returns the
// payload. Chunk signatures and trailing checksums are not verified. hint is
// the announced decoded length (x-amz-decoded-content-length), or -1; it only
// sizes the buffer. Bodies over MaxControlObject fail with ErrTooLarge.
//
// Wire format, one or more of
//
//	<hex size>[;chunk-signature=<sig>]\r\n<size bytes>\r\n
//
// ending with a zero-size chunk, optional trailer lines and an empty line.
func DecodeAWSChunked(r io.Reader, hint int64) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out bytes.Buffer
	if hint > 0 {
		out.Grow(int(min(hint, maxPrealloc)))
	}
	for {
		line, err := readChunkLine(br)
		if err != nil {
			return nil, fmt.Errorf("%w: chunk header: %v", ErrChunkedBody, err)
		}
		sizeField, _, _ := bytes.Cut(line, []byte(";"))
		size, err := strconv.ParseInt(string(bytes.TrimSpace(sizeField)), 16, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("%w: bad chunk size %q", ErrChunkedBody, sizeField)
		}
		if size == 0 {
			return out.Bytes(), skipTrailers(br)
		}
		if size > MaxControlObject-int64(out.Len()) {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxControlObject)
		}
		// CopyN grows the buffer as bytes arrive, so a chunk header
		// announcing much more than is sent cannot reserve the memory.
		if _, err := io.CopyN(&out, br, size); err != nil {
			return nil, fmt.Errorf("%w: chunk of %d bytes: %v", ErrChunkedBody, size, err)
		}
		var crlf [2]byte
		if _, err := io.ReadFull(br, crlf[:]); err != nil || crlf != [2]byte{'\r', '\n'} {
			return nil, fmt.Errorf("%w: chunk not followed by CRLF", ErrChunkedBody)
		}
	}
}

// skipTrailers consumes trailer lines after the last chunk up to the empty
// line. A body that simply ends after the last chunk is accepted too.
func skipTrailers(br *bufio.Reader) error {
	for {
		line, err := readChunkLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: trailer: %v", ErrChunkedBody, err)
		}
		if len(line) == 0 {
			return nil
		}
	}
}

// readChunkLine returns one line without its CRLF (or bare LF). It returns
// io.EOF only when no byte at all was left.
func readChunkLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > maxChunkLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxChunkLine)
		}
		switch {
		case err == nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) == 0:
			return nil, io.EOF
		case errors.Is(err, io.EOF):
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}
