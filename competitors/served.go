package competitors

import (
	"net"
	"net/url"
)

// Served is the capability to say where the competitor's server listens,
// host:port, so its processes can be found on this host and its cost
// measured (internal/servercost). Competitors without a server of their
// own (embedded, sql) do not have it.
type Served interface {
	ServerAddr() string
}

// StoreServed is the capability of a catalog that runs in the benchmark's
// own process on a store that is a server (iceberg-go's SQL catalog on
// PostgreSQL) to say where that store listens, host:port: its processes
// serving this process's connections are then measured as the catalog's
// server cost (servercost.StoreMeter).
type StoreServed interface {
	StoreAddr() string
}

// hostPort returns the host:port a base URL reaches, the scheme's port
// when it names none; "" when base is not a URL.
func hostPort(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
