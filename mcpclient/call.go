package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// ProtocolError is a JSON-RPC error the server answered a call with.
type ProtocolError struct {
	Target, Tool string
	Code         int64
	Message      string
}

// JSONRPCCode returns the error's code: what marks a refusal by the server
// as a JSON-RPC error, to a caller that does not import this package.
func (e *ProtocolError) JSONRPCCode() int64 { return e.Code }

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("target %s: %s: JSON-RPC error %d: %s", e.Target, e.Tool, e.Code, e.Message)
}

// OutcomeKind classes the error by its code: a request the server could not
// parse, a method or tool it does not have, or arguments it refuses are
// refusals (nothing happened); any other JSON-RPC error (an internal error of
// the server's) says nothing of whether the call happened.
func (e *ProtocolError) OutcomeKind() string {
	switch e.Code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams:
		return contract.KindRefused
	}
	return contract.KindServerError
}

// reply calls a tool with JSON arguments and returns its result as a
// profile reads it: the one way a call reaches the server. A JSON-RPC error
// is a *ProtocolError; a transport failure, or no reply within the call
// timeout, is an outcome nobody knows (contract.IndeterminateError), in one
// line naming the target and the tool; the caller's ctx ending is its
// error. With faults, a session a fault ended is opened again first.
func (c *conn) reply(ctx context.Context, tool string, args json.RawMessage) (*profile.Reply, error) {
	return c.replyWithin(ctx, tool, args, c.t.opts.CallTimeout)
}

// replyWithin is reply with the call's time bound timeout (0: none).
func (c *conn) replyWithin(ctx context.Context, tool string, args json.RawMessage, timeout time.Duration) (*profile.Reply, error) {
	cs, l := c.cs, c.link
	if c.t.faults != nil {
		var err error
		if cs, l, err = c.ready(ctx); err != nil {
			return nil, err
		}
		if c.run != nil && c.t.writeTools[tool] {
			defer c.run.writing()()
		}
	}
	callCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if callCtx.Err() != nil {
			return nil, contract.Indeterminate(contract.KindTimeout, fmt.Errorf("target %s: %s: no reply within %v", c.t.name, tool, timeout))
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) && !localCode(je.Code) {
			return nil, &ProtocolError{Target: c.t.name, Tool: tool, Code: je.Code, Message: je.Message}
		}
		return nil, c.failOn(l, tool, err)
	}
	r := &profile.Reply{IsError: res.IsError, Structured: res.StructuredContent}
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if i > 0 {
				r.Text += "\n"
			}
			r.Text += tc.Text
		}
	}
	return r, nil
}

// tookTwin reports whether the write the conn's link last carried was sent
// twice at once by a duplicate fault, and clears it. Its own reply says
// nothing of its twin's: a write refused (its twin came first and took the
// version) may have been applied all the same. A conn is one session's,
// which makes one call at a time; a conn the editors share may tell one
// call of another's twin, which only weakens that call's outcome to one
// nobody knows.
func (c *conn) tookTwin() bool {
	_, l := c.current()
	return l != nil && l.wire != nil && l.wire.twin.Swap(false)
}

// localCode reports whether a JSON-RPC error code is one the SDK gives a
// call that never got an answer: the transport rejected it (a POST that
// failed, a stream closed) or the client was closing. Such an error is the
// transport's, not the server's answer.
func localCode(code int64) bool {
	const (
		codeClientClosing = -32003
		codeRejected      = -32005
	)
	return code == codeClientClosing || code == codeRejected
}

// fail is a transport failure of a call of tool: an outcome nobody knows,
// in one line naming the target and the tool, with how the server died
// when it did, and otherwise the failure at the bottom of the SDK's
// wrapping ("connection reset by peer", not three layers of "calling",
// "sending" and "rejected by transport").
func (c *conn) fail(tool string, err error) error {
	_, l := c.current()
	return c.failOn(l, tool, err)
}

// failOn is fail on the link l the call went over: a connection a lost
// reply cut is said to be.
func (c *conn) failOn(l *link, tool string, err error) error {
	if l.wire != nil && l.wire.cut.Load() {
		return contract.Indeterminate(contract.KindReplyLost, fmt.Errorf("target %s: %s: the connection was cut: a reply was lost on the wire (a fault notesbench made)", c.t.name, tool))
	}
	if died := l.died(); died != nil {
		return contract.Indeterminate(contract.KindDied, fmt.Errorf("target %s: %s: %v", c.t.name, tool, died))
	}
	kind := contract.KindFailure
	if errors.Is(err, context.DeadlineExceeded) {
		kind = contract.KindTimeout
	}
	return contract.Indeterminate(kind, fmt.Errorf("target %s: %s: %s", c.t.name, tool, rootCause(err)))
}

// rootCause is what an error chain says at its bottom, where the SDK's
// layers of wrapping end: "connection reset by peer".
func rootCause(err error) string {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			// The SDK joins its marker of a rejected call with the cause:
			// the cause is the last error that is no JSON-RPC error.
			for _, e := range u.Unwrap() {
				var je *jsonrpc.Error
				if !errors.As(e, &je) {
					next = e
				}
			}
		}
		if next == nil {
			break
		}
		err = next
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, mcp.ErrConnectionClosed):
		return "the connection closed"
	}
	return strings.TrimSpace(err.Error())
}

// transientTries bounds the calls of a transient error: the first and its
// retries, waiting transientPause, doubled each time, in between.
const (
	transientTries = 5
	transientPause = 10 * time.Millisecond
)

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
