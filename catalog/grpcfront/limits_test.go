package grpcfront_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
	"github.com/nordisk/katbench/internal/testenv"
)

// countingCodec is the server's proto codec with a count of the messages it
// decoded: the server's decode path, observed from outside.
type countingCodec struct {
	encoding.CodecV2
	decoded atomic.Int64
}

func newCountingCodec() *countingCodec {
	return &countingCodec{CodecV2: encoding.GetCodecV2("proto")}
}

func (c *countingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	c.decoded.Add(1)
	return c.CodecV2.Unmarshal(data, v)
}

// rawClient is a bare generated client for addr, closed at cleanup.
func rawClient(t *testing.T, addr string) (*grpc.ClientConn, catalogv1.CatalogServiceClient) {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, catalogv1.NewCatalogServiceClient(conn)
}

// bigCommit is a CommitTable request carrying n bytes of updates JSON.
func bigCommit(n int) *catalogv1.CommitTableRequest {
	return &catalogv1.CommitTableRequest{
		Ident:       []string{"ns", "t"},
		UpdatesJson: bytes.Repeat([]byte{' '}, n),
	}
}

// An unauthenticated call carrying a large message is refused on its
// headers: the server never decodes (or reads) the message.
func TestUnauthenticatedCallIsNeverDecoded(t *testing.T) {
	codec := newCountingCodec()
	s := serve(t, openEmbedded(t), grpcfront.ServerOptions{
		Credentials: []grpcfront.Credential{benchCred},
		GRPCOptions: []grpc.ServerOption{grpc.ForceServerCodecV2(codec)},
	})
	_, rpc := rawClient(t, s.addr)
	ctx := context.Background()

	const calls, size = 8, 12 << 20
	req := bigCommit(size)
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			bad := ctx
			if i%2 == 1 {
				bad = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer made-up")
			}
			_, errs[i] = rpc.CommitTable(bad, req)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("call %d: err = %v, want Unauthenticated", i, err)
		}
	}
	if n := codec.decoded.Load(); n != 0 {
		t.Fatalf("server decoded %d unauthenticated messages, want 0", n)
	}

	// The hook sees decoding when it happens: an authenticated call is read.
	tok := rawToken(t, s.addr, benchCred)
	authed := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
	if _, err := rpc.Ping(authed, &catalogv1.Empty{}); err != nil {
		t.Fatalf("authenticated ping: %v", err)
	}
	if n := codec.decoded.Load(); n < 2 { // GetToken and Ping
		t.Fatalf("server decoded %d messages after GetToken and Ping, want ≥ 2", n)
	}
}

// A message over the receive limit fails with ResourceExhausted before it
// is decoded, with the default limit and with a configured one.
func TestReceiveLimit(t *testing.T) {
	cases := []struct {
		name  string
		limit int // ServerOptions.MaxRecvBytes
		size  int // bytes of updates JSON sent
	}{
		{"default", 0, grpcfront.DefaultMaxRecvBytes + 1},
		{"configured", 1 << 20, 1<<20 + 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			codec := newCountingCodec()
			s := serve(t, openEmbedded(t), grpcfront.ServerOptions{
				MaxRecvBytes: tc.limit,
				GRPCOptions:  []grpc.ServerOption{grpc.ForceServerCodecV2(codec)},
			})
			_, rpc := rawClient(t, s.addr)
			_, err := rpc.CommitTable(context.Background(), bigCommit(tc.size))
			if status.Code(err) != codes.ResourceExhausted {
				t.Fatalf("err = %v, want ResourceExhausted", err)
			}
			if n := codec.decoded.Load(); n != 0 {
				t.Fatalf("server decoded %d oversize messages, want 0", n)
			}
		})
	}
	if _, err := grpcfront.NewServer(openEmbedded(t), grpcfront.ServerOptions{MaxRecvBytes: -1}); !errors.Is(err, grpcfront.ErrBadOptions) {
		t.Fatalf("MaxRecvBytes -1: err = %v, want ErrBadOptions", err)
	}
}

// At most MaxTokenCalls GetToken calls are in flight; one more is refused
// with ResourceExhausted until one of them ends.
func TestGetTokenCallsBounded(t *testing.T) {
	s := serve(t, openEmbedded(t), grpcfront.ServerOptions{Credentials: []grpcfront.Credential{benchCred}})
	conn, rpc := rawClient(t, s.addr)
	ctx := context.Background()

	// Each held call has sent its headers and no message: the server holds
	// it in flight, waiting to read.
	desc := &grpc.StreamDesc{StreamName: "GetToken"}
	held := make([]context.CancelFunc, grpcfront.MaxTokenCalls)
	for i := range held {
		hctx, cancel := context.WithCancel(ctx)
		held[i] = cancel
		t.Cleanup(cancel)
		if _, err := conn.NewStream(hctx, desc, catalogv1.CatalogService_GetToken_FullMethodName); err != nil {
			t.Fatalf("hold GetToken %d: %v", i, err)
		}
	}
	getToken := func() error {
		_, err := rpc.GetToken(ctx, &catalogv1.GetTokenRequest{Id: benchCred.ID, Secret: benchCred.Secret})
		return err
	}
	testenv.PollUntil(t, "a GetToken past the limit to be refused", func() bool {
		return status.Code(getToken()) == codes.ResourceExhausted
	})
	// A client dialling now is refused its token while the slots are
	// held, and retries until one frees.
	dialed := make(chan error, 1)
	go func() {
		cl, err := grpcfront.Dial(ctx, s.addr, grpcfront.ClientOptions{Credential: benchCred})
		if err == nil {
			cl.Close()
		}
		dialed <- err
	}()
	held[0]()
	if err := <-dialed; err != nil {
		t.Fatalf("dial with a credential while GetToken was busy: %v", err)
	}
	testenv.PollUntil(t, "a GetToken to be admitted after one ended", func() bool { return getToken() == nil })
}

// Connections past MaxConnections are closed on accept; closing one frees
// its slot.
func TestConnectionLimit(t *testing.T) {
	s := serve(t, openEmbedded(t), grpcfront.ServerOptions{MaxConnections: 2})
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		held = append(held, c)
	}
	// A ping on a third connection fails while both slots are held: the
	// server accepts connections in order, so the first two hold them.
	extra, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	// The deadline only bounds the test if the connection were served (the
	// server would wait for the HTTP/2 preface); a refused one reads EOF.
	_ = extra.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := extra.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isReset(err) {
		t.Fatalf("read on a connection past the limit: %v, want EOF (closed by the server)", err)
	}

	held[0].Close()
	_, rpc := rawClient(t, s.addr)
	testenv.PollUntil(t, "a connection to be served after one closed", func() bool {
		pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := rpc.Ping(pctx, &catalogv1.Empty{})
		return err == nil
	})
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}
