package transport

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/nordisk/katbench/transport/uring"
)

// Uring is katbench's io_uring HTTP/1.1 transport (package transport/uring).
const Uring Kind = "uring"

// The io_uring transport's settings (Options.Settings, prefixed "uring.").
const (
	// uringWait is the wait mode: auto (the default), poll, block,
	// adaptive, hold or sqpoll (see uring.ParseWait).
	uringWait = "wait"
	// uringForceFail "1" makes the transport unavailable, so the fallback
	// to net/http can be tested and shown on any machine.
	uringForceFail = "force-fail"
)

func init() {
	Register(Plugin{
		Name: Uring, Order: 10, Doc: "katbench's io_uring HTTP/1.1 transport (plaintext; Linux)",
		Env:   map[string]string{uringWait: uring.WaitEnv, uringForceFail: uring.ForceFailEnv},
		Check: checkUring,
		New:   newUring,
	})
}

func checkUring(s map[string]string) error {
	for k, v := range s {
		switch k {
		case uringWait:
			if _, err := uring.ParseWait(v); err != nil {
				return err
			}
		case uringForceFail:
			if v != "" && v != "0" && v != "1" {
				return fmt.Errorf("%s %q: want 1 or 0", k, v)
			}
		default:
			return fmt.Errorf("unknown setting %q (want %s or %s)", k, uringWait, uringForceFail)
		}
	}
	return nil
}

func newUring(u *url.URL, opts Options) (http.RoundTripper, error) {
	s := opts.Settings.For(Uring)
	if s[uringForceFail] == "1" {
		return nil, fmt.Errorf("%w: forced by test hook (%s=1)", ErrUnavailable, uring.ForceFailEnv)
	}
	if u.Scheme == "https" {
		return nil, fmt.Errorf("%w: https endpoints go through net/http (the io_uring path is plaintext only)", ErrUnavailable)
	}
	wait, _ := uring.ParseWait(s[uringWait]) // checked by New
	t, err := uring.NewTransport(uring.Options{
		PoolSize:              opts.poolSize(),
		DialTimeout:           opts.DialTimeout,
		ResponseHeaderTimeout: opts.Timeout,
		Wait:                  wait,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return t, nil
}
