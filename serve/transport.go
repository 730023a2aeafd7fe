package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is the path of the MCP endpoint under streamable HTTP.
const HTTPPath = "/mcp"

// drainLimit bounds how long a shutdown waits for the calls in flight. A
// write is one short transaction, so only a database stuck on its busy
// timeout comes near it.
const drainLimit = 30 * time.Second

// sessionTimeout closes an HTTP session no request has touched for this long,
// so that a client that vanished without ending its session does not keep
// database connections open for ever.
const sessionTimeout = 30 * time.Minute

// Serve serves one MCP connection over t (for stdio, &mcp.StdioTransport{})
// until the client ends it or ctx is done. When ctx is done it shuts down
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

// ServeListener serves streamable HTTP on ln, at HTTPPath, until ctx is done,
// then shuts down gracefully as Serve does and closes ln. Each MCP session
// (one Mcp-Session-Id) gets contract sessions of its own. It returns the
// listener's error, if it fails, and nil after a shutdown.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener) error {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{JSONResponse: true, SessionTimeout: sessionTimeout})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(ln) }()
	select {
	case err := <-failed:
		return err
	case <-ctx.Done():
	}
	s.drain(drainLimit)
	// Ending the MCP sessions ends their open streams, so that Shutdown has
	// only idle connections left to close.
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-failed; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
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
