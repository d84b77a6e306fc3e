package icebergio

import (
	"fmt"
	"sync"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/transport/s3"
)

// sharedClient is one minio-go client and what its transport really is.
type sharedClient struct {
	client *minio.Client
	info   s3.Info
}

// clients are the shared clients by their explicit settings, the scope
// (PropScope) among them, so two owners never share a pool by accident.
var (
	clientsMu sync.Mutex
	clients   = map[clientKey]*sharedClient{}
)

// clientFor returns the client for st's key, building it on first use.
// Building does no I/O. Safe for concurrent use.
func clientFor(st settings) (*sharedClient, error) {
	k := st.key
	clientsMu.Lock()
	defer clientsMu.Unlock()
	if c, ok := clients[k]; ok {
		return c, nil
	}
	c, info, err := s3.NewClient(s3.Config{
		Endpoint: k.endpoint, AccessKey: k.accessKey, SecretKey: k.secretKey, Region: k.region,
		Transport: k.kind, TransportSettings: st.transport, PoolSize: k.pool, VirtualHost: k.virtual,
		MaxRetries: maxRetries, DialTimeout: dialTimeout, ResponseTimeout: responseTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 io: %w", err)
	}
	sc := &sharedClient{client: c, info: info}
	clients[k] = sc
	return sc, nil
}

// CloseIdle closes the idle keep-alive connections (and io_uring rings) of
// every shared client. Clients stay usable; their next request dials again.
// For the end of a run or a test. Safe for concurrent use.
func CloseIdle() {
	clientsMu.Lock()
	defer clientsMu.Unlock()
	for _, c := range clients {
		c.info.CloseIdle()
	}
}

// Release closes the idle connections of scope's clients (PropScope) and
// forgets them, so the scope's owner — a run, a target of it — leaves
// nothing behind; an FS of the scope still open keeps working and dials
// again. Safe for concurrent use.
func Release(scope string) {
	clientsMu.Lock()
	defer clientsMu.Unlock()
	for k, c := range clients {
		if k.scope == scope {
			c.info.CloseIdle()
			delete(clients, k)
		}
	}
}
