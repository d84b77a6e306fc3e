package s3bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// ClientFloor is the target of the floor lane (Config.ClientFloor): the bench's
// client with no byte path under it. Its lines say what minio-go (request
// building, signing, response parsing), the workers, the pacer and the
// recorder cost per operation on their own, so no transport's CPU per
// operation can be below its in the same cell and run: a transport's
// best possible ratio over the baseline is floor/baseline.
const ClientFloor transport.Kind = "floor"

// floorNote is params.floor on the floor lane's lines.
const floorNote = "the client without a byte path: minio-go, signing, the workers, the pacer and the recorder, every request answered from memory in the calling goroutine (no socket, no store, no wait); the lowest CPU per operation any transport could reach here"

// floorRT answers the bench's S3 requests from memory in the calling
// goroutine: PUT keeps the body, GET and HEAD (ranged or not) answer it,
// with the headers minio-go reads. Safe for concurrent use.
type floorRT struct {
	mu   sync.RWMutex
	objs map[string]*floorObject
}

// floorObject is one stored object; body is replaced, never written, so a
// reader of an older body is unaffected by a later PUT.
type floorObject struct {
	body []byte
	etag string
}

// floorModified is every floor object's Last-Modified.
const floorModified = "Thu, 01 Jan 1970 00:00:00 GMT"

func newFloorRT() *floorRT { return &floorRT{objs: map[string]*floorObject{}} }

// errFloorMethod reports a request the floor does not answer (the bench
// sends none: CheckFloor rejects the ops that would).
var errFloorMethod = errors.New("s3bench: the floor answers HEAD, GET and PUT of one object")

// RoundTrip implements http.RoundTripper.
func (f *floorRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	path := req.URL.Path
	switch {
	case req.URL.RawQuery != "":
		return nil, fmt.Errorf("%w, not %s %s?%s", errFloorMethod, req.Method, path, req.URL.RawQuery)
	case req.Method == http.MethodPut:
		return f.put(req, path)
	case req.Method == http.MethodGet || req.Method == http.MethodHead:
		f.mu.RLock()
		obj := f.objs[path]
		f.mu.RUnlock()
		if obj == nil {
			return respond(req, http.StatusNotFound, http.Header{"Content-Type": {"application/xml"}}, []byte("<Error><Code>NoSuchKey</Code></Error>")), nil
		}
		return get(req, obj), nil
	default:
		return nil, fmt.Errorf("%w, not %s %s", errFloorMethod, req.Method, path)
	}
}

func (f *floorRT) put(req *http.Request, path string) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		buf := bytes.NewBuffer(make([]byte, 0, max(req.ContentLength, 0)))
		if _, err := io.Copy(buf, req.Body); err != nil {
			return nil, fmt.Errorf("s3bench: floor: read PUT body: %w", err)
		}
		body = buf.Bytes()
	}
	obj := &floorObject{body: body, etag: `"` + strconv.FormatInt(int64(len(body)), 16) + `"`}
	f.mu.Lock()
	f.objs[path] = obj
	f.mu.Unlock()
	return respond(req, http.StatusOK, http.Header{"Etag": {obj.etag}}, nil), nil
}

// get answers a GET or HEAD of obj, of the range the request names if any.
func get(req *http.Request, obj *floorObject) *http.Response {
	body, status := obj.body, http.StatusOK
	h := http.Header{
		"Etag":          {obj.etag},
		"Last-Modified": {floorModified},
		"Content-Type":  {"application/octet-stream"},
		"Accept-Ranges": {"bytes"},
	}
	if rg := req.Header.Get("Range"); rg != "" {
		first, last, err := s3.ParseRange(rg, int64(len(body)))
		if err != nil {
			return respond(req, http.StatusRequestedRangeNotSatisfiable, http.Header{"Content-Type": {"application/xml"}}, []byte("<Error><Code>InvalidRange</Code></Error>"))
		}
		h["Content-Range"] = []string{fmt.Sprintf("bytes %d-%d/%d", first, last, len(body))}
		body, status = body[first:last+1], http.StatusPartialContent
	}
	return respond(req, status, h, body)
}

// respond is the response to req with status, headers h and body; a HEAD
// gets body's length and no body.
func respond(req *http.Request, status int, h http.Header, body []byte) *http.Response {
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	resp := &http.Response{
		Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		Request: req,
	}
	if req.Method == http.MethodHead {
		resp.Body = http.NoBody
	}
	return resp
}
