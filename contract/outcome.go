package contract

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Outcome is what a client learned of a call, in Jepsen's three: it happened,
// it definitely did not, or nobody can tell. Every call an editor or a clause
// makes ends in one of them, and a run goes on after Fail and Info.
type Outcome string

// The outcomes.
const (
	// OK: the call happened; a write committed, or replayed its key's first
	// result.
	OK Outcome = "ok"
	// Fail: the call definitely did not happen; the server refused it and
	// changed nothing (a version conflict, an unknown Note or tab, invalid
	// arguments, a reply a profile classifies as a refusal).
	Fail Outcome = "fail"
	// Info: the call may or may not have happened: its reply was lost, it
	// timed out, the server died or restarted, or it answered something no
	// profile recognizes. A write with this outcome may have landed.
	Info Outcome = "info"
)

// The kinds of failure behind a Fail or an Info outcome, as a history records
// them beside the outcome.
const (
	// Fail kinds.
	KindConflict = "conflict"
	KindNotFound = ErrNotFound
	KindInvalid  = ErrInvalidArgument
	KindSchema   = "schema"
	KindRefused  = "refused"
	// KindGone: the server says the document the call names no longer
	// exists (a profile's error class "gone"): it changed nothing, and the
	// document, or the whole store, is lost.
	KindGone = "gone"
	// Info kinds.
	KindReplyLost  = "reply_lost"
	KindTimeout    = "timeout"
	KindDied       = "server_died"
	KindBusy       = "busy"
	KindUnreadable = "unreadable"
	// KindTwinSent: the server refused the call, but a twin of it, sent at
	// the same time (a duplicate fault), may have been applied.
	KindTwinSent = "twin_sent"
	// KindServerError: the server answered, with an error it did not
	// explain (an error result no profile classes, a JSON-RPC internal
	// error).
	KindServerError = "server_error"
	// KindFailure: anything else, as a broken connection.
	KindFailure = "failure"
)

// OutcomeOf classifies the error a call returned. nil is OK. A contract
// outcome (a *ConflictError, *NotFoundError, *InvalidArgumentError or
// *SchemaError), a *RefusedError and a *GoneError are Fail. An error with an
// OutcomeKind() string method says its kind itself (a JSON-RPC error, by its
// code). Anything else — a transport failure, a timeout, a server that
// died, a reply nobody can read, an *IndeterminateError — is Info: the call
// may have happened.
//
// A cancelled or expired ctx of the caller's own is not an outcome of the
// server's: callers check their ctx before classifying.
func OutcomeOf(err error) Outcome {
	k := KindOf(err)
	switch {
	case k == "":
		return OK
	case slices.Contains(failKinds, k):
		return Fail
	}
	return Info
}

// failKinds are the kinds of a Fail: the call changed nothing.
var failKinds = []string{KindConflict, KindNotFound, KindInvalid, KindSchema, KindRefused, KindGone}

// IsFailKind reports whether kind is one of a Fail's; every other kind is
// an Info's.
func IsFailKind(kind string) bool { return slices.Contains(failKinds, kind) }

// KindOf names the kind of failure err is (one of the Kind constants), or ""
// for nil.
func KindOf(err error) string {
	var (
		conflict *ConflictError
		notFound *NotFoundError
		schema   *SchemaError
		invalid  *InvalidArgumentError
		refused  *RefusedError
		unknown  *IndeterminateError
		kinded   interface{ OutcomeKind() string }
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &conflict):
		return KindConflict
	case errors.As(err, &notFound):
		return KindNotFound
	case errors.As(err, &schema):
		return KindSchema
	case errors.As(err, &invalid):
		return KindInvalid
	case errors.As(err, &refused):
		return KindRefused
	case errors.As(err, &kinded):
		return kinded.OutcomeKind()
	case errors.As(err, &unknown):
		if unknown.Kind != "" {
			return unknown.Kind
		}
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	}
	return KindFailure
}

// RefusedError is a refusal by the server that is not one of the contract's
// own outcomes: an error reply a profile classifies as refused (the server
// says nothing changed, as `task_not_found` does). It is a Fail outcome.
type RefusedError struct {
	// Tool is the tool that refused, Reply what it answered, cut short.
	Tool  string
	Reply string
	// Target names the server, Field the profile field whose call it was;
	// either may be empty.
	Target, Field string
}

func (e *RefusedError) Error() string { return replied(e.Target, e.Field, e.Tool+" refused: "+e.Reply) }

// replied names, before what a tool replied, the profile field whose call
// it was and the target, where they are known: "target t: write (put
// refused: …)".
func replied(target, field, s string) string {
	if field != "" {
		s = field + " (" + s + ")"
	}
	if target != "" {
		s = "target " + target + ": " + s
	}
	return s
}

// GoneError is a reply that says the document the call names no longer
// exists, as a profile's error class "gone" recognizes it: a Fail of kind
// KindGone.
type GoneError struct {
	// Tool is the tool that answered, Reply what it answered, cut short.
	Tool  string
	Reply string
	// Target names the server, Field the profile field whose call it was.
	Target, Field string
}

func (e *GoneError) Error() string {
	return replied(e.Target, e.Field, e.Tool+" says the document is gone: "+e.Reply)
}

// OutcomeKind is KindGone.
func (e *GoneError) OutcomeKind() string { return KindGone }

// IndeterminateError is an Info outcome with its cause named: the call may
// or may not have happened. Kind is one of the Info kinds (KindReplyLost,
// KindTimeout, KindDied, KindBusy, KindUnreadable, KindServerError,
// KindFailure).
type IndeterminateError struct {
	Kind string
	Err  error
}

func (e *IndeterminateError) Error() string {
	if e.Err == nil {
		return "outcome unknown (" + e.Kind + ")"
	}
	return e.Err.Error()
}

func (e *IndeterminateError) Unwrap() error { return e.Err }

// Indeterminate wraps err as an Info outcome of kind.
func Indeterminate(kind string, err error) error {
	return &IndeterminateError{Kind: kind, Err: err}
}

// Indeterminatef is Indeterminate with a formatted message.
func Indeterminatef(kind, format string, args ...any) error {
	return &IndeterminateError{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// ClientError is a fault of the client's own, not an outcome of the
// server's: a profile that cannot read what the server answers, a request
// the client cannot build. It ends the run it happens in, where an outcome
// of the server's is counted and the run goes on.
type ClientError struct{ Err error }

func (e *ClientError) Error() string { return e.Err.Error() }

func (e *ClientError) Unwrap() error { return e.Err }

// Stops reports whether err must end the run it happened in rather than be
// counted as an outcome: a *ClientError.
func Stops(err error) bool {
	var ce *ClientError
	return errors.As(err, &ce)
}

// Refusal says what the server answered, for evidence.
func (e *RefusedError) Refusal() string { return e.Tool + " answered an error result " + e.Reply }
