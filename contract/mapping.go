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
}

// Native reports whether m is the contract's own tools.
func (m Mapping) Native() bool { return m.Profile == "" }

// Mapped is a target that says what its writes carry (a target that maps
// the contract onto a server's own tools through a profile). A target
// without it carries the contract's own tools.
type Mapped interface {
	Mapping() Mapping
}
