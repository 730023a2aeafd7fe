//go:build !unix

package pgstore

import (
	"context"
	"net"
)

// dialFunc is how the store connects to the server: pgconn's own dialer
// (nil) where blocking sockets are not built (see dial_unix.go).
var dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)
