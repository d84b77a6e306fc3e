package restserver

import (
	"net/http"
	"strconv"
	"time"
)

// ServerTimingHeader is the response header in which the server says how
// long it worked on the request (W3C Server Timing): "app;dur=MS", the
// milliseconds from the request's head being read to the answer's head
// being written. A client subtracts it from its time to first byte to see
// the network and from its whole time to see its own decoding.
const ServerTimingHeader = "Server-Timing"

// timedWriter stamps ServerTimingHeader on the response when its head is
// written. Used by one request's goroutine.
type timedWriter struct {
	http.ResponseWriter
	start time.Time
	wrote bool
}

func (w *timedWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		ms := float64(time.Since(w.start)) / float64(time.Millisecond)
		w.Header().Set(ServerTimingHeader, string(strconv.AppendFloat([]byte("app;dur="), ms, 'f', 3, 64)))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *timedWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
