package contract

// Mapping is what a target's writes carry, as a checker of the contract
// (conform) may hold them to: the Notes contract's own tools carry all of
// it, a server's own tools through a profile what the profile maps.
type Mapping struct {
	// Profile names the profile; "" means the contract's own tools, whose
	// writes carry everything below (the other fields but VersionFormat are
	// then ignored).
	Profile string
	// VersionCheck says the write sends a version the server checks.
	VersionCheck bool
	// Key says the write sends an idempotency key.
	Key bool
	// VersionOmittable says a write can be sent without its version: the
	// version variable is the whole value of a member, which a write without
	// one drops. It is false where the variable sits inside a string (an SQL
	// template), which cannot leave it out.
	VersionOmittable bool
	// VersionFormat is what the versions the target reports are: a counter,
	// a timestamp (ms, us-suffix), notesbench's own digest of the content
	// for a server without versions, or the server's opaque etag or
	// revision. Empty means the target does not say.
	VersionFormat VersionFormat
	// ServerTools names, for each of the contract's tools the profile maps,
	// the server's own tool that stands for it (edit_note_tab: write_file),
	// so that what a history or a proof shows is the call the server saw.
	// Nil for the contract's own tools.
	ServerTools map[string]string
	// Hints are the annotations the server declares of the tools the
	// target writes through (its write, create and add-source tools), by
	// the server's name of each; a tool that declares neither hint is
	// absent. What a declared hint promises is a thing a run can
	// contradict (an audit's "declared but not kept").
	Hints map[string]ToolHints
}

// ToolHints are what a server declares of one of its tools in MCP's tool
// annotations, which a client may act on without calling the tool.
type ToolHints struct {
	// ReadOnly is readOnlyHint: the tool changes nothing.
	ReadOnly bool
	// Idempotent is idempotentHint: calling it again with the same
	// arguments has no further effect, so a client may resend it.
	Idempotent bool
}

// Native reports whether m is the contract's own tools.
func (m Mapping) Native() bool { return m.Profile == "" }

// Mapped is a target that says what its writes carry (a target that maps
// the contract onto a server's own tools through a profile). A target
// without it carries the contract's own tools.
type Mapped interface {
	Mapping() Mapping
}
