//go:build !linux

package pgstore

import (
	"context"
	"net"
)

// dialFunc is how the store connects to the server: pgconn's own dialer
// (nil) where waiting connections are not built (see dial_linux.go).
var dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)
