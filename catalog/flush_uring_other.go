//go:build !linux

package catalog

import "errors"

// uringFlusher is Linux only.
type uringFlusher struct{}

func newUringFlusher() (*uringFlusher, error) { return nil, errors.ErrUnsupported }

func (*uringFlusher) close() error { return nil }

func (*uringFlusher) flush(tasks []*flushTask) {
	for _, t := range tasks {
		t.err = errors.ErrUnsupported
	}
}
