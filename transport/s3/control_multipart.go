package s3

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxControlParts is S3's limit on parts per multipart upload.
const maxControlParts = 10000

// multipartUploads holds the control's open multipart uploads. Parts are
// kept in memory like objects; an upload disappears on complete or abort.
// Safe for concurrent use.
type multipartUploads struct {
	mu      sync.Mutex
	uploads map[string]*upload // by upload id
}

// upload is one open multipart upload. Its fields are guarded by
// multipartUploads.mu.
type upload struct {
	bucket, key string
	parts       map[int]uploadedPart
}

type uploadedPart struct {
	data []byte
	etag string
}

type initiateMultipartUploadResult struct {
	XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
	NS       string   `xml:"xmlns,attr"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	UploadID string   `xml:"UploadId"`
}

type completeMultipartUpload struct {
	Parts []struct {
		PartNumber int    `xml:"PartNumber"`
		ETag       string `xml:"ETag"`
	} `xml:"Part"`
}

type completeMultipartUploadResult struct {
	XMLName  xml.Name `xml:"CompleteMultipartUploadResult"`
	NS       string   `xml:"xmlns,attr"`
	Location string   `xml:"Location"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	ETag     string   `xml:"ETag"`
}

// serveMultipart answers the multipart-upload requests on an object
// (initiate, upload part, complete, abort) and reports whether r was one.
//
// Like the rest of the control it checks no signature. A part's ETag is
// its upload id and number, not an MD5, for the reason object.ETag is lazy:
// the control measures the byte path, not hashing. Complete checks that the
// listed parts exist with those ETags, in ascending order, and that every
// part but the last holds at least 5 MiB, as S3 does.
func (c *Control) serveMultipart(w http.ResponseWriter, r *http.Request, bucket, key string) bool {
	q := r.URL.Query()
	_, initiate := q["uploads"]
	id := q.Get("uploadId")
	switch {
	case r.Method == http.MethodPost && initiate:
		c.initiateUpload(w, r, bucket, key)
	case r.Method == http.MethodPut && id != "":
		c.uploadPart(w, r, bucket, key, id, q.Get("partNumber"))
	case r.Method == http.MethodPost && id != "":
		c.completeUpload(w, r, bucket, key, id)
	case r.Method == http.MethodDelete && id != "":
		c.mp.mu.Lock()
		u, ok := c.mp.uploads[id]
		if ok && u.bucket == bucket && u.key == key {
			delete(c.mp.uploads, id)
		}
		c.mp.mu.Unlock()
		if !ok || u.bucket != bucket || u.key != key {
			writeError(w, r, http.StatusNotFound, "NoSuchUpload", "upload does not exist", bucket, key)
			return true
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		return false
	}
	return true
}

func (c *Control) initiateUpload(w http.ResponseWriter, r *http.Request, bucket, key string) {
	_, _ = io.Copy(io.Discard, r.Body)
	if !c.hasBucket(bucket) {
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, key)
		return
	}
	var raw [12]byte
	_, _ = rand.Read(raw[:]) // crypto/rand never fails on Linux
	id := hex.EncodeToString(raw[:])
	c.mp.mu.Lock()
	if c.mp.uploads == nil {
		c.mp.uploads = map[string]*upload{}
	}
	c.mp.uploads[id] = &upload{bucket: bucket, key: key, parts: map[int]uploadedPart{}}
	c.mp.mu.Unlock()
	writeXML(w, http.StatusOK, initiateMultipartUploadResult{NS: s3NS, Bucket: bucket, Key: key, UploadID: id})
}

func (c *Control) uploadPart(w http.ResponseWriter, r *http.Request, bucket, key, id, number string) {
	n, err := strconv.Atoi(number)
	if err != nil || n < 1 || n > maxControlParts {
		writeError(w, r, http.StatusBadRequest, "InvalidArgument", fmt.Sprintf("bad partNumber %q", number), bucket, key)
		return
	}
	if !c.hasUpload(id, bucket, key) {
		writeError(w, r, http.StatusNotFound, "NoSuchUpload", "upload does not exist", bucket, key)
		return
	}
	data, ok := readBodyOrAnswer(w, r, bucket, key)
	if !ok {
		return
	}
	etag := fmt.Sprintf(`"%s-%d"`, id, n)
	c.mp.mu.Lock()
	u, ok := c.mp.uploads[id]
	if ok {
		u.parts[n] = uploadedPart{data: data, etag: etag}
	}
	c.mp.mu.Unlock()
	if !ok { // aborted or completed while the body was read
		writeError(w, r, http.StatusNotFound, "NoSuchUpload", "upload does not exist", bucket, key)
		return
	}
	w.Header()["Etag"] = []string{etag}
	w.Header()["Content-Length"] = []string{"0"}
	w.WriteHeader(http.StatusOK)
}

func (c *Control) hasUpload(id, bucket, key string) bool {
	c.mp.mu.Lock()
	defer c.mp.mu.Unlock()
	u, ok := c.mp.uploads[id]
	return ok && u.bucket == bucket && u.key == key
}

func (c *Control) completeUpload(w http.ResponseWriter, r *http.Request, bucket, key, id string) {
	var req completeMultipartUpload
	if err := xml.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&req); err != nil {
		writeError(w, r, http.StatusBadRequest, "MalformedXML", err.Error(), bucket, key)
		return
	}
	if len(req.Parts) == 0 {
		writeError(w, r, http.StatusBadRequest, "MalformedXML", "no parts", bucket, key)
		return
	}
	c.mp.mu.Lock()
	u, ok := c.mp.uploads[id]
	if !ok || u.bucket != bucket || u.key != key {
		c.mp.mu.Unlock()
		writeError(w, r, http.StatusNotFound, "NoSuchUpload", "upload does not exist", bucket, key)
		return
	}
	total, prev := 0, 0
	for i, p := range req.Parts {
		got, ok := u.parts[p.PartNumber]
		switch {
		case p.PartNumber <= prev:
			c.mp.mu.Unlock()
			writeError(w, r, http.StatusBadRequest, "InvalidPartOrder", "parts must be listed in ascending order", bucket, key)
			return
		case !ok || strings.Trim(got.etag, `"`) != strings.Trim(p.ETag, `"`):
			c.mp.mu.Unlock()
			writeError(w, r, http.StatusBadRequest, "InvalidPart", fmt.Sprintf("part %d not uploaded or ETag mismatch", p.PartNumber), bucket, key)
			return
		case i < len(req.Parts)-1 && len(got.data) < 5<<20:
			c.mp.mu.Unlock()
			writeError(w, r, http.StatusBadRequest, "EntityTooSmall", fmt.Sprintf("part %d is smaller than 5 MiB", p.PartNumber), bucket, key)
			return
		}
		prev = p.PartNumber
		total += len(got.data)
	}
	if total > MaxControlObject {
		c.mp.mu.Unlock()
		writeError(w, r, http.StatusBadRequest, "EntityTooLarge", fmt.Sprintf("%d bytes", total), bucket, key)
		return
	}
	data := make([]byte, 0, total)
	for _, p := range req.Parts {
		data = append(data, u.parts[p.PartNumber].data...)
	}
	delete(c.mp.uploads, id)
	c.mp.mu.Unlock()

	now := time.Now().UTC()
	o := &object{data: data, modified: now, lastMod: now.Format(http.TimeFormat), size: strconv.Itoa(len(data))}
	// S3 marks a multipart object's ETag with "-<parts>"; so does the
	// control (without hashing, see object.ETag).
	o.etagOnce.Do(func() { o.etag = fmt.Sprintf(`"%s-%d"`, id, len(req.Parts)) })
	c.mu.Lock()
	objs, ok := c.buckets[bucket]
	if ok {
		objs[key] = o
	}
	c.mu.Unlock()
	if !ok {
		writeError(w, r, http.StatusNotFound, "NoSuchBucket", "bucket does not exist", bucket, key)
		return
	}
	writeXML(w, http.StatusOK, completeMultipartUploadResult{
		NS: s3NS, Location: "/" + bucket + "/" + key, Bucket: bucket, Key: key, ETag: o.ETag(),
	})
}
