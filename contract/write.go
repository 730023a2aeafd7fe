package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Write is one write as the contract checks it: a tool's, guarded by an
// expected version and an idempotency key, or a person's save from the app
// (Tool empty), which takes neither but bumps the version like any write.
type Write struct {
	Tool   string
	NoteID string
	// TabID is the tab whose content the write changes; "" for a Note-level
	// write (create_note_tab, add_note_source, the tab-bar actions).
	TabID string
	// Expected is the expected version of a tool's write as the store keeps
	// versions (Versions.Expected).
	Expected any
	// Args is the digest of the write's arguments (ArgsDigest), set when the
	// variant refuses a key reused with other arguments.
	Args string
}

// Found is what a store read for a write, inside the transaction that makes
// it, before changing anything.
type Found struct {
	NoteFound bool
	// TabFound says the write's tab exists, when the write names one.
	TabFound bool
	// Current is the stored version the write is checked against: the tab's
	// when the write is tab-scoped (Variant.TabScoped), else the Note's.
	Current any
	// KeyFound says the write's idempotency key was used before in the Note,
	// first by FirstTool.
	KeyFound  bool
	FirstTool string
	// FirstArgs is the digest of the arguments the key was first used
	// with; empty when the store did not keep it (a key stored under
	// KeyReplay), and then a resend is replayed whatever its arguments.
	FirstArgs string
}

// TabScoped reports whether a write to tabID ("" for a Note-level write) is
// checked against, and bumps, its tab's version rather than the Note's.
func (v Variant) TabScoped(tabID string) bool { return v.Guard == GuardTab && tabID != "" }

// GuardedVersion picks, of a Note's and a tab's stored versions, the one a
// write to tabID ("" for a Note-level write) is checked against: the one a
// read of the tab reports, for the client to send back.
func (v Variant) GuardedVersion(tabID string, noteVersion, tabVersion any) any {
	if v.TabScoped(tabID) {
		return tabVersion
	}
	return noteVersion
}

// CheckWrite makes the contract's checks of w, given what the store found, in
// the order v says: under OrderKeyFirst the idempotency key first, then the
// Note and the tab, then check (w against its target, e.g. an operation that
// does not fit the tab's type; nil for none), then the version (unless
// GuardNone), and under OrderVersionFirst the key last. A person's save skips
// the key and the version.
//
// It returns replay true when the key is known to w's tool: the store then
// returns the result first stored under it (DecodeReplay) and writes nothing.
// A key first used by another tool is an invalid argument.
func (v Variant) CheckWrite(w Write, f Found, check func() error) (replay bool, err error) {
	tool := w.Tool != ""
	keyFirst := v.Order != OrderVersionFirst
	if tool && keyFirst && f.KeyFound {
		return v.replays(w, f)
	}
	switch {
	case w.NoteID == "":
		return false, Invalid("note_id", "required")
	case !f.NoteFound:
		return false, &NotFoundError{Field: "note_id", ID: w.NoteID}
	case w.TabID != "" && !f.TabFound:
		return false, &NotFoundError{Field: "tab_id", ID: w.TabID}
	}
	if check != nil {
		if err := check(); err != nil {
			return false, err
		}
	}
	if tool && v.Guard != GuardNone && f.Current != w.Expected {
		return false, &ConflictError{Current: VersionOf(f.Current)}
	}
	if tool && !keyFirst && f.KeyFound {
		return v.replays(w, f)
	}
	return false, nil
}

// replays says whether w replays the known key f found.
func (v Variant) replays(w Write, f Found) (bool, error) {
	if f.FirstTool != w.Tool {
		return false, Invalid("idempotency_key", "already used by %s in this Note", f.FirstTool)
	}
	if v.RefusesKeyReuse() && f.FirstArgs != "" && f.FirstArgs != w.Args {
		return false, Invalid("idempotency_key", ErrKeyReusedMessage)
	}
	return true, nil
}

// ErrKeyReusedMessage is the message of a key refused because it was first
// used with other arguments (KeyRefuse).
const ErrKeyReusedMessage = "already used in this Note with other arguments: send the first call's arguments again, or a new key for a new write"

// ArgsDigest is the digest of a write's arguments but its expected version
// and its key, what KeyRefuse compares: the SHA-256 of their JSON, in hex.
// req is an EditRequest, a CreateRequest or a SourceRequest.
func ArgsDigest(req any) string {
	switch r := req.(type) {
	case EditRequest:
		r.ExpectedVersion, r.IdempotencyKey = "", ""
		req = r
	case CreateRequest:
		r.ExpectedVersion, r.IdempotencyKey = "", ""
		req = r
	case SourceRequest:
		r.ExpectedVersion, r.IdempotencyKey = "", ""
		req = r
	}
	b, err := json.Marshal(req)
	if err != nil {
		b = []byte(fmt.Sprintf("%#v", req))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// DecodeReplay decodes stored, the result first stored under key, into res (a
// pointer to an EditResult, CreateResult or SourceResult) and sets its
// Replayed.
func DecodeReplay(key, stored string, res any) error {
	if err := json.Unmarshal([]byte(stored), res); err != nil {
		return fmt.Errorf("decoding stored result of key %q: %w", key, err)
	}
	switch r := res.(type) {
	case *EditResult:
		r.Replayed = true
	case *CreateResult:
		r.Replayed = true
	case *SourceResult:
		r.Replayed = true
	}
	return nil
}
