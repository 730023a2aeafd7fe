package store

import (
	"fmt"
	"time"
)

// Guard is the scope of the version a write is checked against.
type Guard string

// The version scopes. The zero Guard means GuardNote.
const (
	// GuardNone checks no version: every write lands (last writer wins).
	GuardNone Guard = "none"
	// GuardNote keeps one version for the whole Note; every write anywhere in the
	// Note bumps it. This is the published connector's scope and the default.
	GuardNote Guard = "note"
	// GuardTab gives each tab its own version: a content write compares and bumps
	// its tab's version; Note-level writes (create_note_tab, add_note_source and
	// the tab-bar actions) use the Note version.
	GuardTab Guard = "tab"
)

// VersionFormat is how a version is made at commit time.
type VersionFormat string

// The version formats. The zero VersionFormat means FormatCounter.
const (
	// FormatCounter is an integer incremented by every write.
	FormatCounter VersionFormat = "counter"
	// FormatMS is the commit time cut to milliseconds. Two commits in the same
	// millisecond get the same version: that collision is what the fast
	// experiment measures, so it is kept on purpose.
	FormatMS VersionFormat = "ms"
	// FormatUSSuffix is the commit time in microseconds plus a random 6-hex-digit
	// suffix, which makes collisions vanishingly rare.
	FormatUSSuffix VersionFormat = "us-suffix"
)

// Order is which check a write makes first.
type Order string

// The check orders. The zero Order means OrderKeyFirst.
const (
	// OrderKeyFirst looks the idempotency key up first: a known key returns the
	// stored first result whatever the expected version says.
	OrderKeyFirst Order = "key-first"
	// OrderVersionFirst compares the version first, so a resend carrying a stale
	// version gets a conflict. It exists to measure what goes wrong.
	OrderVersionFirst Order = "version-first"
)

// Synchronous is SQLite's PRAGMA synchronous for the database file.
type Synchronous string

// The synchronous settings. The zero Synchronous means SyncNormal.
const (
	SyncNormal Synchronous = "normal"
	SyncFull   Synchronous = "full"
)

// Clock tells the store the time. The store reads it for timestamp versions,
// tab IDs and attachment creation times, and never calls time.Now itself.
type Clock interface {
	Now() time.Time
}

// Options select the contract variant a Store implements. The zero value is the
// published connector: guard note, counter versions, key checked first,
// synchronous normal, the wall clock.
type Options struct {
	Guard         Guard
	VersionFormat VersionFormat
	Order         Order
	Synchronous   Synchronous
	// Clock supplies commit times. Nil means the wall clock.
	Clock Clock
	// Seed seeds the random suffix of us-suffix versions, so that a run on the
	// virtual clock is reproducible.
	Seed uint64
}

// ParseGuard parses a version scope: none, note or tab.
func ParseGuard(s string) (Guard, error) {
	switch g := Guard(s); g {
	case GuardNone, GuardNote, GuardTab:
		return g, nil
	}
	return "", fmt.Errorf("unknown guard %q (want none, note or tab)", s)
}

// ParseVersionFormat parses a version format: counter, ms or us-suffix.
func ParseVersionFormat(s string) (VersionFormat, error) {
	switch f := VersionFormat(s); f {
	case FormatCounter, FormatMS, FormatUSSuffix:
		return f, nil
	}
	return "", fmt.Errorf("unknown version format %q (want counter, ms or us-suffix)", s)
}

// ParseOrder parses a check order: key-first or version-first.
func ParseOrder(s string) (Order, error) {
	switch o := Order(s); o {
	case OrderKeyFirst, OrderVersionFirst:
		return o, nil
	}
	return "", fmt.Errorf("unknown order %q (want key-first or version-first)", s)
}

// ParseSynchronous parses a synchronous setting: normal or full.
func ParseSynchronous(s string) (Synchronous, error) {
	switch v := Synchronous(s); v {
	case SyncNormal, SyncFull:
		return v, nil
	}
	return "", fmt.Errorf("unknown synchronous setting %q (want normal or full)", s)
}

// withDefaults fills the zero fields of o with the published defaults.
func (o Options) withDefaults() Options {
	if o.Guard == "" {
		o.Guard = GuardNote
	}
	if o.VersionFormat == "" {
		o.VersionFormat = FormatCounter
	}
	if o.Order == "" {
		o.Order = OrderKeyFirst
	}
	if o.Synchronous == "" {
		o.Synchronous = SyncNormal
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	return o
}

func (o Options) validate() error {
	if _, err := ParseGuard(string(o.Guard)); err != nil {
		return err
	}
	if _, err := ParseVersionFormat(string(o.VersionFormat)); err != nil {
		return err
	}
	if _, err := ParseOrder(string(o.Order)); err != nil {
		return err
	}
	_, err := ParseSynchronous(string(o.Synchronous))
	return err
}

// wallClock is the default Clock: the only place the store reads the wall clock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
