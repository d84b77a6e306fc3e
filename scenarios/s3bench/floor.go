package s3bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nordisk/katbench/transport"
)

// Floor is the target of the floor lane (Config.Floor): the bench's
// client with no byte path under it. Its lines say what minio-go (request
// building, signing, response parsing), the workers, the pacer and the
// recorder cost per operation on their own, so no transport's CPU per
// operation can be below its in the same cell and run: a transport's
// best possible ratio over the baseline is floor/baseline.
const Floor transport.Kind = "floor"

// floorNote is params.floor on the floor lane's lines.
const floorNote = "the client without a byte path: minio-go, signing, the workers, the pacer and the recorder, every request answered from memory in the calling goroutine (no socket, no store, no wait); the lowest CPU per operation any transport could reach here"

// floorRT answers the bench's S3 requests from memory in the calling
// goroutine: PUT keeps the body, GET and HEAD (ranged or not) answer it,
// with the headers minio-go reads. Safe for concurrent use.
type floorRT struct {
	mu   sync.RWMutex
	objs map[string]*floorObject
	// modified is every object's Last-Modified: one fixed time, formatted once.
	modified string
}

// floorObject is one stored object; body is replaced, never written, so a
// reader of an older body is unaffected by a later PUT.
type floorObject struct {
	body []byte
	etag string
}

func newFloorRT() *floorRT {
	return &floorRT{objs: map[string]*floorObject{}, modified: time.Unix(0, 0).UTC().Format(http.TimeFormat)}
}

// errFloorMethod reports a request the floor does not answer (the bench
// sends none: Config rejects the ops that would).
var errFloorMethod = fmt.Errorf("s3bench: the floor answers HEAD, GET and PUT of one object")

// RoundTrip implements http.RoundTripper.
func (f *floorRT) RoundTrip(req *http.Request) (*http.Response, error) {
	path := req.URL.Path
	if req.URL.RawQuery != "" {
		closeBody(req)
		return nil, fmt.Errorf("%w, not %s %s?%s", errFloorMethod, req.Method, path, req.URL.RawQuery)
	}
	switch req.Method {
	case http.MethodPut:
		return f.put(req, path)
	case http.MethodGet, http.MethodHead:
		closeBody(req)
		f.mu.RLock()
		obj := f.objs[path]
		f.mu.RUnlock()
		if obj == nil {
			return f.respond(req, http.StatusNotFound, http.Header{"Content-Type": {"application/xml"}}, []byte("<Error><Code>NoSuchKey</Code></Error>")), nil
		}
		return f.get(req, obj)
	default:
		closeBody(req)
		return nil, fmt.Errorf("%w, not %s %s", errFloorMethod, req.Method, path)
	}
}

func (f *floorRT) put(req *http.Request, path string) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		n := max(req.ContentLength, 0)
		buf := bytes.NewBuffer(make([]byte, 0, n))
		_, err := io.Copy(buf, req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("s3bench: floor: read PUT body: %w", err)
		}
		body = buf.Bytes()
	}
	obj := &floorObject{body: body, etag: `"` + strconv.FormatInt(int64(len(body)), 16) + `"`}
	f.mu.Lock()
	f.objs[path] = obj
	f.mu.Unlock()
	return f.respond(req, http.StatusOK, http.Header{"Etag": {obj.etag}}, nil), nil
}

func (f *floorRT) get(req *http.Request, obj *floorObject) (*http.Response, error) {
	body, status := obj.body, http.StatusOK
	h := http.Header{
		"Etag":          {obj.etag},
		"Last-Modified": {f.modified},
		"Content-Type":  {"application/octet-stream"},
		"Accept-Ranges": {"bytes"},
	}
	if rg := req.Header.Get("Range"); rg != "" {
		first, last, ok := parseFloorRange(rg, int64(len(body)))
		if !ok {
			return f.respond(req, http.StatusRequestedRangeNotSatisfiable, http.Header{"Content-Type": {"application/xml"}}, []byte("<Error><Code>InvalidRange</Code></Error>")), nil
		}
		h["Content-Range"] = []string{fmt.Sprintf("bytes %d-%d/%d", first, last, len(body))}
		body, status = body[first:last+1], http.StatusPartialContent
	}
	if req.Method == http.MethodHead {
		resp := f.respond(req, status, h, nil)
		resp.ContentLength = int64(len(body))
		resp.Header["Content-Length"] = []string{strconv.Itoa(len(body))}
		return resp, nil
	}
	return f.respond(req, status, h, body), nil
}

// parseFloorRange reads "bytes=first-last" (what minio-go sends) against
// an object of size bytes.
func parseFloorRange(rg string, size int64) (first, last int64, ok bool) {
	spec, found := strings.CutPrefix(rg, "bytes=")
	a, b, dash := strings.Cut(spec, "-")
	if !found || !dash {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first || first >= size {
		return 0, 0, false
	}
	return first, min(last, size-1), true
}

// respond is the response to req with status, headers h and body.
func (f *floorRT) respond(req *http.Request, status int, h http.Header, body []byte) *http.Response {
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	return &http.Response{
		Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		Request: req,
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
