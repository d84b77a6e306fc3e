package restserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/nordisk/katbench/internal/sigv4"
)

// authorizeSigV4 checks r's AWS SigV4 signature (Options.SigV4). A
// request that signs its payload hash (X-Amz-Content-Sha256) is verified
// here, before its body is read, and its body is checked against the hash
// as the handler reads it; one that does not, but has a body, is verified
// by verifyBufferedSigV4 once the body is admitted (deferred is then
// true). Every refusal is 403 and names no key.
func (s *Server) authorizeSigV4(r *http.Request) (deferred bool, err error) {
	if r.Header.Get("X-Amz-Content-Sha256") == "" && r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		if err := sigv4.CheckAuthorization(r.Header.Get("Authorization")); err != nil {
			return false, fmt.Errorf("%w: %v", ErrForbidden, err)
		}
		return true, nil
	}
	if err := s.sigv4.Verify(r); err != nil {
		return false, fmt.Errorf("%w: %v", ErrForbidden, err)
	}
	return false, nil
}

// verifyBufferedSigV4 reads r's admitted body, verifies the signature over
// it and gives the handler the same bytes.
func (s *Server) verifyBufferedSigV4(r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: limit %d bytes for this route", ErrBodyTooLarge, mbe.Limit)
		}
		return fmt.Errorf("%w: read body: %v", ErrBadRequest, err)
	}
	if err := s.sigv4.VerifyBuffered(r, body); err != nil {
		return fmt.Errorf("%w: %v", ErrForbidden, err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// bodyReadError is readBody's error for a failed read of an admitted
// body: a body that does not match its signed hash is 403, any other
// failure 400.
func bodyReadError(err error) error {
	if errors.Is(err, sigv4.ErrRefused) {
		return fmt.Errorf("%w: %v", ErrForbidden, err)
	}
	return fmt.Errorf("%w: read body: %v", ErrBadRequest, err)
}
