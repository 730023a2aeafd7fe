package contract

import (
	"context"
	"time"
)

// The tool names of the published tools/list.
const (
	ToolListNoteTabs        = "list_note_tabs"
	ToolReadNoteTab         = "read_note_tab"
	ToolReadSheetRange      = "read_sheet_range"
	ToolListNoteAttachments = "list_note_attachments"
	ToolEditNoteTab         = "edit_note_tab"
	ToolCreateNoteTab       = "create_note_tab"
	ToolAddNoteSource       = "add_note_source"
)

// Session is one client of the contract: the seven tools, typed. An editor holds
// one Session, as a process holds its own connection or MCP session. A Session is
// not safe for concurrent use unless its implementation says so.
//
// Contract outcomes are typed errors: *ConflictError (nothing was written),
// *NotFoundError, *InvalidArgumentError and *SchemaError; use errors.As. A
// replayed idempotency key is not an error: the result carries Replayed. Any other
// error is a failure of the implementation (a broken database, a dead server).
type Session interface {
	ListNoteTabs(ctx context.Context, noteID string) (TabList, error)
	ReadNoteTab(ctx context.Context, noteID, tabID string) (TabContent, error)
	ReadSheetRange(ctx context.Context, req RangeRequest) (SheetRange, error)
	ListNoteAttachments(ctx context.Context, req AttachmentsRequest) (AttachmentPage, error)
	EditNoteTab(ctx context.Context, req EditRequest) (EditResult, error)
	CreateNoteTab(ctx context.Context, req CreateRequest) (CreateResult, error)
	AddNoteSource(ctx context.Context, req SourceRequest) (SourceResult, error)
	Close() error
}

// Person is what a person does in the app, beside the tools: saves that take no
// expected version and no idempotency key, but bump the version like any write,
// so a stale agent write conflicts with them. A Session may implement it; an
// experiment that needs the person's actions asks with a type assertion.
type Person interface {
	MoveTab(ctx context.Context, noteID, tabID string, pos int) error
	RenameTab(ctx context.Context, noteID, tabID, label string) error
	AddTab(ctx context.Context, noteID string, typ TabType, label string) (TabInfo, error)
	SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error
	SetText(ctx context.Context, noteID, text string) error
}

// Backend is one instance of the contract holding Notes: a database, or a
// server. Sessions opened on one Backend see the same Notes.
type Backend interface {
	// CreateNote creates a Note with the three fixed tabs, an empty text and its
	// first version. It is set-up, not a tool: no version, no key.
	CreateNote(ctx context.Context, noteID string) error
	// Session opens a client of its own; close it when done.
	Session(ctx context.Context) (Session, error)
	// Close releases the backend; its Sessions must be closed first.
	Close() error
}

// Clock tells an implementation the time: commit times of timestamp versions,
// tab IDs and attachment creation times. Under the virtual clock it is injected,
// so that a run is the same on every machine.
type Clock interface {
	Now() time.Time
}

// RunSpec is what a Target needs to open the Backend of one run.
type RunSpec struct {
	// Name is unique among the runs of one experiment ("race-note-reapply-seed3");
	// a Target may use it to name a database file or a schema.
	Name    string
	Variant Variant
	// Clock supplies commit times; nil means the implementation's own clock.
	Clock Clock
	// Seed seeds whatever the implementation draws at random (the suffix of
	// us-suffix versions), so that a virtual-clock run is reproducible.
	Seed uint64
	// OneServer says the run's sessions are clients of one server, as an MCP
	// server's sessions are (and the bench's writers, when there are several),
	// rather than separate processes each with its own connection, as the
	// published setup has them. An implementation may then coordinate its
	// sessions in-process: the SQLite store runs their writes in a queue in Go,
	// committed in groups by one writer, instead of leaving them to poll in
	// SQLite's busy handler. Experiments that model the published setup leave
	// it false.
	OneServer bool
}

// Target makes a fresh Backend for each run of an experiment: an embedded
// database, a database server or an MCP server. Open is safe for concurrent use.
type Target interface {
	Open(ctx context.Context, run RunSpec) (Backend, error)
	// Describe says in a few words what the runs go to, for a report:
	// "SQLite 3.50.4 (modernc.org/sqlite), WAL files".
	Describe() string
	// Close releases what the Target holds beyond its runs (a temporary folder).
	Close() error
}

// Served is a Target whose runs cannot choose the contract variant: a server
// serves one, whatever a run asks. Served reports it, and false when the
// server does not say. Runs on such a Target open with the zero Variant (as
// served); an experiment checks first that what it means to measure is what
// is served.
type Served interface {
	Served() (Variant, bool)
}
