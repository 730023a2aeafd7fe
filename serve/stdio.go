package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
)

// MaxMessageBytes is the largest JSON-RPC message the server reads, over stdio
// (one line) and over HTTP (one request body): the largest tool call's
// arguments the contract takes (contract.MaxArgsBytes) and room for the
// message around them.
const MaxMessageBytes = contract.MaxArgsBytes + 64<<10

// StdioTransport is the server's end of MCP over a byte stream: one JSON-RPC
// message a line, as the MCP stdio transport has it. It frames the stream
// itself rather than through the SDK's stdio transport, which ends the
// connection on the first line it cannot decode:
//
//   - a line that is not JSON is answered with a parse error (-32700, id
//     null), and one that is JSON but no JSON-RPC 2.0 request, notification
//     or response (a batch array, another version, an object id) with an
//     invalid request (-32600, with the request's id when it has a usable
//     one, else null); the server goes on with the next line;
//   - a line longer than MaxLine is refused (-32600, id null) as it is read,
//     not buffered: what is past the limit is skipped up to the next newline;
//   - an error reply the SDK makes without a code (a call before
//     initialize, initialize params it cannot decode) gets the JSON-RPC
//     code of what it is rather than 0 (see wireError);
//   - at the end of the input the calls already read are finished and
//     answered, then the connection ends.
//
// Blank lines are skipped.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLine bounds a line in bytes; 0 means MaxMessageBytes.
	MaxLine int
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = MaxMessageBytes
	}
	c := &stdioConn{
		w:        t.Writer,
		in:       t.Reader,
		incoming: make(chan jsonrpc.Message),
		ended:    make(chan struct{}),
		drained:  make(chan struct{}),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]bool{},
		inits:    map[jsonrpc.ID]bool{},
	}
	go c.readLines(bufio.NewReaderSize(t.Reader, 64<<10), limit)
	return c, nil
}

// stdioConn is one connection over a StdioTransport.
type stdioConn struct {
	w  io.Writer
	in io.Reader

	incoming chan jsonrpc.Message
	ended    chan struct{} // closed when the input ended
	endErr   error         // why it ended: io.EOF, or a read error

	wmu sync.Mutex // orders writes

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls read and not yet answered
	drained chan struct{}       // closed once the input ended and no call is pending
	done    bool                // drained is closed
	// inits are the IDs of the initialize calls read and not yet answered,
	// and initialized says one was answered with a result: until then an
	// error the SDK gives without a code is about a call made too early.
	inits       map[jsonrpc.ID]bool
	initialized bool

	closeOnce sync.Once
	closed    chan struct{}
}

// readLines reads the input line by line until it ends or the connection
// closes, answers what is no message, and hands each message to Read.
func (c *stdioConn) readLines(r *bufio.Reader, limit int) {
	defer close(c.ended)
	var line []byte
	over := false // the line passed the limit: skip to its end
	for {
		chunk, err := r.ReadSlice('\n')
		if !over {
			if len(line)+len(chunk) > limit {
				over, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // the line goes on
		}
		// The line ended, with its newline or with the input.
		if over {
			c.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a message longer than %d bytes", limit))
		} else if !c.handle(line) {
			return
		}
		line, over = nil, false
		if err != nil {
			c.endErr = err
			return
		}
	}
}

// handle decodes one line and hands the message to Read, or answers it with
// an error. It reports false when the connection closed meanwhile.
func (c *stdioConn) handle(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return true
	}
	msg, id, code, why := decodeLine(line)
	if msg == nil {
		c.refuse(id, code, why)
		return true
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		if c.pending[req.ID] {
			// The SDK refuses a second call with an ID in use, answering it
			// without that ID: it is not awaited.
		} else {
			c.pending[req.ID] = true
			if req.Method == "initialize" {
				c.inits[req.ID] = true
			}
		}
		c.mu.Unlock()
	}
	select {
	case c.incoming <- msg:
		return true
	case <-c.closed:
		return false
	}
}

// decodeLine decodes one message, or says why it is none: the error code, a
// few words, and the request's ID when it has a usable one.
func decodeLine(line []byte) (msg jsonrpc.Message, id jsonrpc.ID, code int64, why string) {
	if line[0] == '[' {
		if !json.Valid(line) {
			return nil, id, jsonrpc.CodeParseError, "parse error: not JSON"
		}
		return nil, id, jsonrpc.CodeInvalidRequest, "batches are not supported: send one message a line"
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err == nil {
		return msg, id, 0, ""
	}
	var probe struct {
		ID any `json:"id"`
	}
	if perr := json.Unmarshal(line, &probe); perr != nil {
		var syn *json.SyntaxError
		if errors.As(perr, &syn) || !json.Valid(line) {
			return nil, id, jsonrpc.CodeParseError, "parse error: not JSON"
		}
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message object"
	}
	switch probe.ID.(type) {
	case string, float64:
		id, _ = jsonrpc.MakeID(probe.ID)
	}
	return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
}

// refuse writes an error response.
func (c *stdioConn) refuse(id jsonrpc.ID, code int64, why string) {
	_ = c.write(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: why}})
}

// Read returns the next message. When the input has ended it returns io.EOF
// once every call read has been answered (or after drainLimit).
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.ended:
	}
	c.mu.Lock()
	if len(c.pending) == 0 && !c.done {
		c.done = true
		close(c.drained)
	}
	c.mu.Unlock()
	t := time.NewTimer(drainLimit)
	defer t.Stop()
	select {
	case <-c.drained:
	case <-t.C:
	case <-c.closed:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return nil, c.endErr
}

// Write writes one message as a line.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.write(msg)
}

func (c *stdioConn) write(msg jsonrpc.Message) error {
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp && resp.Error != nil {
		c.mu.Lock()
		early := !c.initialized
		c.mu.Unlock()
		msg = &jsonrpc.Response{ID: resp.ID, Error: wireError(resp.Error, early)}
	}
	b, err := encodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	c.wmu.Lock()
	_, err = c.w.Write(append(b, '\n'))
	c.wmu.Unlock()
	if isResp && resp.ID.IsValid() {
		c.mu.Lock()
		if c.inits[resp.ID] {
			delete(c.inits, resp.ID)
			c.initialized = c.initialized || resp.Error == nil
		}
		delete(c.pending, resp.ID)
		if len(c.pending) == 0 && !c.done && isClosed(c.ended) {
			c.done = true
			close(c.drained)
		}
		c.mu.Unlock()
	}
	return err
}

// wireError is the JSON-RPC error an error reply carries: the error's own,
// or its message with the code of a wire error it wraps. The SDK answers
// some calls with an error that has no code, which it sends as code 0, a
// code JSON-RPC does not define: initialize params it cannot decode, and,
// before the session is initialized (early), any call but initialize and
// ping. They get the code of what they are: invalid params for params that
// could not be decoded, invalid request for a call made before initialize,
// internal error for anything else.
func wireError(err error, early bool) *jsonrpc.Error {
	var e jsonrpc.Error
	if own, ok := err.(*jsonrpc.Error); ok {
		e = *own
	} else {
		e.Message = err.Error()
		var wrapped *jsonrpc.Error
		if errors.As(err, &wrapped) {
			e.Code = wrapped.Code
		}
	}
	if e.Code != 0 {
		return &e
	}
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ) || errors.As(err, &syn):
		e.Code = jsonrpc.CodeInvalidParams
	case early:
		e.Code = jsonrpc.CodeInvalidRequest
	default:
		e.Code = jsonrpc.CodeInternalError
	}
	return &e
}

// encodeMessage encodes a message as the SDK does, except that a response
// without an ID (to a message whose ID could not be read) carries "id": null,
// as JSON-RPC 2.0 requires, rather than no id at all.
func encodeMessage(msg jsonrpc.Message) ([]byte, error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.ID.IsValid() || resp.Error == nil {
		return jsonrpc.EncodeMessage(msg)
	}
	// As the SDK makes the wire error: the error's own, or its message with
	// the code of a wire error it wraps.
	e, ok := resp.Error.(*jsonrpc.Error)
	if !ok {
		e = &jsonrpc.Error{Message: resp.Error.Error()}
		var wrapped *jsonrpc.Error
		if errors.As(resp.Error, &wrapped) {
			e.Code = wrapped.Code
		}
	}
	return json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, e})
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Close ends the connection; reading stops, and the input is closed when it
// can be.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if rc, ok := c.in.(io.Closer); ok {
			_ = rc.Close()
		}
	})
	return nil
}

// SessionID implements mcp.Connection: a stream has no session ID.
func (c *stdioConn) SessionID() string { return "" }
