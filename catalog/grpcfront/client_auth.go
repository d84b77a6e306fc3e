package grpcfront

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
)

// tokenRefreshMargin is how long before expiry a token is replaced.
const tokenRefreshMargin = time.Minute

// bearerAuth is the client's per-RPC credentials: it attaches
// "authorization: Bearer <token>" to every call but GetToken, fetching a
// fresh token from the server when the current one is near expiry. The
// metadata map is built once per token and shared (grpc only reads it), so a
// call costs one atomic load and no allocation. Safe for concurrent use.
type bearerAuth struct {
	cred Credential // zero when a fixed token was given: never refreshed
	rpc  catalogv1.CatalogServiceClient

	state     atomic.Pointer[tokenState]
	refreshMu sync.Mutex // one refresh at a time
}

type tokenState struct {
	md      map[string]string
	expires time.Time // zero: does not expire as far as the client knows
}

var _ credentials.PerRPCCredentials = (*bearerAuth)(nil)

func (a *bearerAuth) setToken(tok string, expires time.Time) {
	a.state.Store(&tokenState{md: map[string]string{"authorization": "Bearer " + tok}, expires: expires})
}

func (a *bearerAuth) stale(st *tokenState) bool {
	return st == nil || (a.cred.ID != "" && !st.expires.IsZero() && time.Until(st.expires) < tokenRefreshMargin)
}

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (a *bearerAuth) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	if ri, ok := credentials.RequestInfoFromContext(ctx); ok && ri.Method == catalogv1.CatalogService_GetToken_FullMethodName {
		return nil, nil
	}
	st := a.state.Load()
	if a.stale(st) {
		if a.cred.ID == "" {
			return nil, fmt.Errorf("%w: no token", ErrUnauthenticated)
		}
		if err := a.refresh(ctx, st); err != nil {
			return nil, err
		}
		st = a.state.Load()
	}
	return st.md, nil
}

// refresh fetches a new token with the credential, unless another caller
// replaced seen (the token the caller found wanting) with a fresh one while
// this one waited.
func (a *bearerAuth) refresh(ctx context.Context, seen *tokenState) error {
	a.refreshMu.Lock()
	defer a.refreshMu.Unlock()
	if cur := a.state.Load(); cur != seen && !a.stale(cur) {
		return nil
	}
	resp, err := a.getToken(ctx)
	if err != nil {
		return fmt.Errorf("get token for %q: %w", a.cred.ID, err)
	}
	a.setToken(resp.GetToken(), time.Unix(0, resp.GetExpiresAtUnixNano()))
	return nil
}

// getToken calls GetToken, retrying with backoff while the server refuses
// it as busy (ResourceExhausted: more than MaxTokenCalls in flight, as when
// many clients start at once), until ctx ends or tokenRetries are spent.
func (a *bearerAuth) getToken(ctx context.Context) (*catalogv1.GetTokenResponse, error) {
	wait := 20 * time.Millisecond
	for try := 1; ; try++ {
		resp, err := a.rpc.GetToken(ctx, &catalogv1.GetTokenRequest{Id: a.cred.ID, Secret: a.cred.Secret})
		if status.Code(err) != codes.ResourceExhausted || try == tokenRetries {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait + rand.N(wait)):
		}
		wait = min(2*wait, time.Second)
	}
}

// tokenRetries bounds the GetToken attempts of one refresh (about 10 s of
// backoff in all).
const tokenRetries = 15

// retryUnauthenticated is a unary client interceptor: a call refused as
// Unauthenticated (the server restarted and forgot its tokens, or expired
// the token early) gets a fresh token and is retried once. Only installed
// when the client has a credential to fetch tokens with.
func (a *bearerAuth) retryUnauthenticated(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	seen := a.state.Load()
	err := invoker(ctx, method, req, reply, cc, opts...)
	if err == nil || method == catalogv1.CatalogService_GetToken_FullMethodName || status.Code(err) != codes.Unauthenticated {
		return err
	}
	if rerr := a.refresh(ctx, seen); rerr != nil {
		return err
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// RequireTransportSecurity implements credentials.PerRPCCredentials: the
// benchmark runs over loopback plaintext.
func (a *bearerAuth) RequireTransportSecurity() bool { return false }
