package serve

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainLimit bounds how long a shutdown waits for the calls in flight, and
// how long the end of a stdio input waits for the calls it carried. A write is
// one short transaction, so only a database stuck on its busy timeout comes
// near it.
const drainLimit = 30 * time.Second

// Serve serves one MCP connection over t (for stdio, a StdioTransport) until
// the client ends it or ctx is done. When ctx is done it shuts down
// gracefully: new calls are refused, calls in flight finish and are answered,
// then the connection closes. It returns nil after either.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	// The connection's own context is not ctx: a signal must not cancel the
	// calls in flight, only stop new ones.
	ss, err := s.mcp.Connect(context.WithoutCancel(ctx), t, nil)
	if err != nil {
		return err
	}
	ended := make(chan struct{})
	go func() {
		_ = ss.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
		s.drain(drainLimit)
		ss.Close()
		<-ended
	}
	return nil
}

// ListenAddr returns addr with the loopback host when it names none
// (":8765" listens on 127.0.0.1:8765), so that a server is reachable from
// other machines only when the user says so. The port must be a number (0
// picks a free one).
func ListenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Loopback reports whether a listen address (as ListenAddr returns it) serves
// this machine alone: a loopback IP or localhost. A wildcard (0.0.0.0, ::) or
// any other address serves the network.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return isLoopbackName(host)
}

// isLoopbackName reports whether host (without a port) is localhost or a
// loopback IP.
func isLoopbackName(host string) bool {
	if host == "localhost" || host == "localhost." {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
