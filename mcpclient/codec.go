package mcpclient

import (
	"context"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// codec is what differs between the two kinds of server a Target reaches:
// how the contract's operations become calls of the server's tools, and how
// its replies become the contract's results and errors. A server of the
// Notes contract has the contract's own calls passed through (passthrough,
// passthrough.go); a server with tools of its own is reached through a
// profile's templates and extracts (interpreter, interpreter.go). The rest
// of the client — sessions, calls and their time bounds, faults, traces,
// the classification of every reply as ok, fail or info, the profile's
// set-up and teardown — is the Target's, and asks its codec, which Dial
// chooses once (chooseCodec).
type codec interface {
	// open ends Dial once the server's tools are listed: the profile's
	// set-up, and what the codec learns or tries before any run.
	open(ctx context.Context, t *Target) error
	// capability returns the profile's section of c and the server's tools
	// c calls; no tools when nothing maps it.
	capability(t *Target, c contract.Capability) (section string, tools []string)
	// mapping is what the target's write sends and what its versions are,
	// but the hints, which the Target adds.
	mapping(t *Target) contract.Mapping
	// served is the contract variant the server serves, and false when
	// nobody can say.
	served(t *Target) (contract.Variant, bool)
	// describe says what the runs go to, but the wire and the faults,
	// which the Target adds.
	describe(t *Target) string

	// createNote makes the document of the run's Note noteID and records
	// it in b.
	createNote(ctx context.Context, b *backend, noteID string) error
	// session is the contract.Session a new session s of the run is: the
	// operations, each made of the server's tools.
	session(ctx context.Context, s *session) (contract.Session, error)
	// errorOf returns the contract's error an error reply r is, naming the
	// server's documents; nil when the reply says none, and the profile's
	// conflict and error classes read it.
	errorOf(r *profile.Reply) error
}

// chooseCodec returns the profile a Target maps the contract through and its
// codec: the profile given, interpreted; without one, the built-in notes
// profile, whose calls pass through.
func chooseCodec(given *profile.Profile) (*profile.Profile, codec, error) {
	if given != nil {
		return given, interpreter{}, nil
	}
	p, err := notesProfile()
	return p, &passthrough{}, err
}

// notesProfile is the profile of a Target given none: the Notes contract's
// own tools, the built-in notes profile.
var notesProfile = sync.OnceValues(func() (*profile.Profile, error) { return profile.Builtin("notes") })
