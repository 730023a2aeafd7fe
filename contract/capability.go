package contract

// Capability is an operation an experiment needs of a target, beyond opening
// runs on fresh Notes: a target that maps the contract onto a server's own
// tools may have some and not others. An experiment declares the ones it
// needs; the command asks the target before anything runs.
type Capability string

// The capabilities, each named after what an experiment does with it.
const (
	// CapRead reads the text of a Note (read_note_tab): its content and version.
	CapRead Capability = "read"
	// CapWrite writes the text (edit_note_tab), with or without a version.
	CapWrite Capability = "write"
	// CapCreate creates a tab with an idempotency key (create_note_tab).
	CapCreate Capability = "create"
	// CapList lists the tabs and the Note version (list_note_tabs), for
	// counting what was created.
	CapList Capability = "list"
	// CapAddSource adds a source with an idempotency key (add_note_source).
	CapAddSource Capability = "add_source"
	// CapListSources lists the sources (list_note_attachments).
	CapListSources Capability = "list_sources"
	// CapEditTabs edits tabs other than the text: slides and sheets.
	CapEditTabs Capability = "edit_tabs"
	// CapPerson is the person's actions in the app (Person).
	CapPerson Capability = "person"
)

// Capable is a Target that knows before any run which capabilities its
// Sessions have. Require returns nil when it has every one of caps, and
// otherwise an error naming what it lacks — the tools missing, and the tools
// the server does list — for the experiment why names. A Target without it
// has every capability.
type Capable interface {
	Require(why string, caps ...Capability) error
}
