package s3

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Control is a minimal in-memory S3-speaking HTTP server on loopback, started
// in-process, so the byte transport's own cost can be measured without a
// store's processing time behind it.
//
// It speaks path-style S3 only: PUT/HEAD/GET(list)/DELETE bucket and
// PUT/GET (with a single Range)/HEAD/DELETE object, multipart uploads
// (control_multipart.go), plus ListObjects (v1 and v2) for cleanup. It ACCEPTS ANY SIGNATURE, or none: it is a control for the
// byte path on 127.0.0.1, not a security boundary, and must never listen on
// anything but loopback.
//
// Unlike S3, a PUT answer carries no ETag: the MD5 is computed lazily on the
// first HEAD, GET or listing of the object, so a PUT through the control
// measures the byte path, not hashing.
//
// A Control is safe for concurrent use. Objects live in a map under a
// RWMutex; stored bytes are never modified after a PUT (a PUT replaces the
// slice), so GETs write them without holding the lock.
type Control struct {
	ln  net.Listener
	srv *http.Server
	url string

	mu      sync.RWMutex
	buckets map[string]map[string]*object

	mp multipartUploads

	closeOnce sync.Once
	closeErr  error
	done      chan struct{}
}

// object is one stored object. Every field but the lazily computed ETag is
// immutable once stored.
type object struct {
	data     []byte
	modified time.Time
	lastMod  string // modified in http.TimeFormat, rendered once
	size     string // len(data) rendered once

	etagOnce sync.Once
	etag     string // quoted md5 hex, as S3 sends it
}

// ETag returns the quoted MD5 hex of the data, computed on first use. It is
// lazy so that a PUT costs the control a copy, not a hash: the control
// exists to show the transport's cost, and hashing 1 MiB would dominate it.
// Safe for concurrent use.
func (o *object) ETag() string {
	o.etagOnce.Do(func() {
		sum := md5.Sum(o.data)
		o.etag = `"` + hex.EncodeToString(sum[:]) + `"`
	})
	return o.etag
}

// StartControl starts a control server on 127.0.0.1 on a free port. Stop it
// with Close.
func StartControl() (*Control, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("control s3: listen on loopback: %w", err)
	}
	c := &Control{
		ln:      ln,
		url:     "http://" + ln.Addr().String(),
		buckets: map[string]map[string]*object{},
		done:    make(chan struct{}),
	}
	c.srv = &http.Server{
		Handler:           c,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
	}
	go func() {
		defer close(c.done)
		_ = c.srv.Serve(ln) // returns ErrServerClosed after Close
	}()
	return c, nil
}

// SetKeepAlive turns keep-alive on (the default) or off. Off, every
// response carries Connection: close and the connection closes after it, so
// each request pays a new connection — the mode of servers that do not keep
// connections alive. Safe to call at any time; it applies to the next
// response.
func (c *Control) SetKeepAlive(on bool) { c.srv.SetKeepAlivesEnabled(on) }

// URL returns the endpoint, e.g. "http://127.0.0.1:40123".
func (c *Control) URL() string { return c.url }

// Close stops the server, closing every connection, and waits for its
// accept loop to end. It is safe to call more than once.
func (c *Control) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.srv.Close()
		<-c.done
	})
	return c.closeErr
}

// ServeHTTP implements the S3 subset described on Control.
func (c *Control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header()["X-Amz-Request-Id"] = []string{"katbench-control"}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case bucket == "":
		if r.Method == http.MethodGet {
			c.listBuckets(w)
			return
		}
		writeError(w, r, http.StatusMethodNotAllowed, "MethodNotAllowed", "unsupported service operation", "", "")
	case key == "":
		c.serveBucket(w, r, bucket)
	default:
		c.serveObject(w, r, bucket, key)
	}
}

func (c *Control) serveBucket(w http.ResponseWriter, r *http.Request, bucket string) {
	q := r.URL.Query()
	switch r.Method {
	case http.MethodPut:
		_, _ = io.Copy(io.Discard, r.Body) // an optional CreateBucketConfiguration
		c.mu.Lock()
		_, exists := c.buckets[bucket]
		if !exists {
			c.buckets[bucket] = map[string]*object{}
		}
		c.mu.Unlock()
		if exists {
			writeError(w, r, http.StatusConflict, "BucketAlreadyOwnedByYou", "bucket already exists", bucket, "")
			return
		}
		w.Header()["Location"] = []string{"/" + bucket}
		w.Header()["Content-Length"] = []string{"0"}
		w.WriteHeader(http.StatusOK)
	case http.MethodHead:
		if !c.hasBucket(bucket) {
			writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, "")
			return
		}
		w.Header()["Content-Length"] = []string{"0"}
		w.WriteHeader(http.StatusOK)
	case http.MethodDelete:
		c.mu.Lock()
		objs, exists := c.buckets[bucket]
		empty := len(objs) == 0
		if exists && empty {
			delete(c.buckets, bucket)
		}
		c.mu.Unlock()
		switch {
		case !exists:
			writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, "")
		case !empty:
			writeError(w, r, http.StatusConflict, "BucketNotEmpty", "bucket is not empty", bucket, "")
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	case http.MethodGet:
		if _, ok := q["location"]; ok {
			if !c.hasBucket(bucket) {
				writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, "")
				return
			}
			writeXML(w, http.StatusOK, locationConstraint{NS: s3NS})
			return
		}
		c.listObjects(w, r, bucket)
	default:
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "unsupported bucket operation", bucket, "")
	}
}

func (c *Control) hasBucket(bucket string) bool {
	c.mu.RLock()
	_, ok := c.buckets[bucket]
	c.mu.RUnlock()
	return ok
}

func (c *Control) lookup(bucket, key string) (*object, bool, bool) {
	c.mu.RLock()
	objs, bok := c.buckets[bucket]
	o := objs[key]
	c.mu.RUnlock()
	return o, bok, o != nil
}

func (c *Control) serveObject(w http.ResponseWriter, r *http.Request, bucket, key string) {
	if c.serveMultipart(w, r, bucket, key) {
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		o, bok, ok := c.lookup(bucket, key)
		switch {
		case !bok:
			writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, key)
		case !ok:
			writeError(w, r, http.StatusNotFound, "NoSuchKey", "key does not exist", bucket, key)
		default:
			serveContent(w, r, o)
		}
	case http.MethodPut:
		c.putObject(w, r, bucket, key)
	case http.MethodDelete:
		c.mu.Lock()
		objs, bok := c.buckets[bucket]
		if bok {
			delete(objs, key)
		}
		c.mu.Unlock()
		if !bok {
			writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, key)
			return
		}
		w.WriteHeader(http.StatusNoContent) // S3 answers 204 whether or not the key existed
	default:
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "unsupported object operation", bucket, key)
	}
}

func (c *Control) putObject(w http.ResponseWriter, r *http.Request, bucket, key string) {
	q := r.URL.Query()
	if _, ok := q["uploads"]; ok || r.Header.Get("X-Amz-Copy-Source") != "" {
		writeError(w, r, http.StatusNotImplemented, "NotImplemented", "copy is not supported by the control", bucket, key)
		return
	}
	if !c.hasBucket(bucket) {
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, key)
		return
	}
	data, ok := readBodyOrAnswer(w, r, bucket, key)
	if !ok {
		return
	}
	now := time.Now().UTC()
	o := &object{
		data:     data,
		modified: now,
		lastMod:  now.Format(http.TimeFormat),
		size:     strconv.Itoa(len(data)),
	}
	c.mu.Lock()
	objs, ok := c.buckets[bucket]
	if ok {
		objs[key] = o
	}
	c.mu.Unlock()
	if !ok { // deleted while the body was read
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, key)
		return
	}
	// No ETag on the PUT response (see object.ETag); minio-go does not need
	// one, and HEAD, GET and listings carry it.
	w.Header()["Content-Length"] = []string{"0"}
	w.WriteHeader(http.StatusOK)
}

// readPutBody reads a PUT body: plain, or aws-chunked (minio-go's default
// streaming SigV4 upload on plaintext), whose framing is removed. Chunk
// signatures are not checked, like every other signature here.
// readBodyOrAnswer reads a PUT's body (readPutBody); when it cannot, it
// answers the request with the S3 error and reports false.
func readBodyOrAnswer(w http.ResponseWriter, r *http.Request, bucket, key string) ([]byte, bool) {
	data, err := readPutBody(r)
	switch {
	case errors.Is(err, ErrTooLarge):
		writeError(w, r, http.StatusBadRequest, "EntityTooLarge", err.Error(), bucket, key)
		return nil, false
	case err != nil:
		writeError(w, r, http.StatusBadRequest, "IncompleteBody", err.Error(), bucket, key)
		return nil, false
	}
	return data, true
}

func readPutBody(r *http.Request) ([]byte, error) {
	sha := r.Header.Get("X-Amz-Content-Sha256")
	chunked := strings.HasPrefix(sha, "STREAMING-") || strings.Contains(r.Header.Get("Content-Encoding"), "aws-chunked")
	if !chunked {
		if r.ContentLength > MaxControlObject {
			return nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, r.ContentLength)
		}
		if r.ContentLength > 0 && r.ContentLength <= maxPrealloc {
			buf := make([]byte, r.ContentLength)
			if _, err := io.ReadFull(r.Body, buf); err != nil {
				return nil, fmt.Errorf("read body: %w", err)
			}
			return buf, nil
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, MaxControlObject+1))
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
		if len(b) > MaxControlObject {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxControlObject)
		}
		return b, nil
	}
	hint := int64(-1)
	if s := r.Header.Get("X-Amz-Decoded-Content-Length"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad x-amz-decoded-content-length %q", s)
		}
		hint = n
	}
	data, err := DecodeAWSChunked(r.Body, hint)
	if err != nil {
		return nil, err
	}
	if hint >= 0 && int64(len(data)) != hint {
		return nil, fmt.Errorf("aws-chunked body has %d bytes, x-amz-decoded-content-length says %d", len(data), hint)
	}
	return data, nil
}

// serveContent answers GET or HEAD for o, honouring a single byte range.
func serveContent(w http.ResponseWriter, r *http.Request, o *object) {
	h := w.Header()
	h["Etag"] = []string{o.ETag()}
	h["Last-Modified"] = []string{o.lastMod}
	h["Content-Type"] = []string{"application/octet-stream"}
	h["Accept-Ranges"] = []string{"bytes"}
	body := o.data
	status := http.StatusOK
	if rng := r.Header.Get("Range"); rng != "" {
		start, end, err := ParseRange(rng, int64(len(o.data)))
		if err != nil {
			h["Content-Range"] = []string{"bytes */" + o.size}
			writeError(w, r, http.StatusRequestedRangeNotSatisfiable, "InvalidRange", err.Error(), "", "")
			return
		}
		body = o.data[start : end+1]
		status = http.StatusPartialContent
		h["Content-Range"] = []string{fmt.Sprintf("bytes %d-%d/%d", start, end, len(o.data))}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	} else {
		h["Content-Length"] = []string{o.size}
	}
	w.WriteHeader(status)
	if r.Method == http.MethodGet && len(body) > 0 {
		_, _ = w.Write(body) // a failed write means the client went away
	}
}

// listObjects answers ListObjects v1 and v2 (list-type=2) with prefix,
// delimiter, max-keys and marker / start-after / continuation-token.
func (c *Control) listObjects(w http.ResponseWriter, r *http.Request, bucket string) {
	q := r.URL.Query()
	v2 := q.Get("list-type") == "2"
	prefix, delim := q.Get("prefix"), q.Get("delimiter")
	maxKeys := 1000
	if s := q.Get("max-keys"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			writeError(w, r, http.StatusBadRequest, "InvalidArgument", "bad max-keys", bucket, "")
			return
		}
		if n < maxKeys {
			maxKeys = n
		}
	}
	after := q.Get("marker")
	if v2 {
		after = q.Get("start-after")
		if t := q.Get("continuation-token"); t != "" {
			after = t
		}
	}

	c.mu.RLock()
	objs, ok := c.buckets[bucket]
	type entry struct {
		key string
		o   *object
	}
	var entries []entry
	for k, o := range objs {
		if strings.HasPrefix(k, prefix) && k > after {
			entries = append(entries, entry{k, o})
		}
	}
	c.mu.RUnlock()
	if !ok {
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, "")
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })

	res := listBucketResult{
		NS: s3NS, Name: bucket, Prefix: prefix, Delimiter: delim, MaxKeys: maxKeys,
		Marker: q.Get("marker"), StartAfter: q.Get("start-after"),
		ContinuationToken: q.Get("continuation-token"),
	}
	seenPrefix := map[string]bool{}
	var last string
	count := 0
	for _, e := range entries {
		if count >= maxKeys {
			res.IsTruncated = true
			break
		}
		if delim != "" {
			if i := strings.Index(e.key[len(prefix):], delim); i >= 0 {
				cp := e.key[:len(prefix)+i+len(delim)]
				if !seenPrefix[cp] {
					seenPrefix[cp] = true
					res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: cp})
					count++
				}
				last = e.key
				continue
			}
		}
		res.Contents = append(res.Contents, listEntry{
			Key: e.key, LastModified: e.o.modified.Format("2006-01-02T15:04:05.000Z"),
			ETag: e.o.ETag(), Size: int64(len(e.o.data)), StorageClass: "STANDARD",
		})
		last = e.key
		count++
	}
	if res.IsTruncated {
		if v2 {
			res.NextContinuationToken = last
		} else {
			res.NextMarker = last
		}
	}
	if v2 {
		res.KeyCount = count
	}
	writeXML(w, http.StatusOK, res)
}

func (c *Control) listBuckets(w http.ResponseWriter) {
	c.mu.RLock()
	names := make([]string, 0, len(c.buckets))
	for b := range c.buckets {
		names = append(names, b)
	}
	c.mu.RUnlock()
	sort.Strings(names)
	res := listAllMyBucketsResult{NS: s3NS}
	for _, n := range names {
		res.Buckets = append(res.Buckets, bucketEntry{Name: n, CreationDate: "2006-01-02T15:04:05.000Z"})
	}
	writeXML(w, http.StatusOK, res)
}
