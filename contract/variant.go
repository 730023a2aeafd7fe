package contract

import "fmt"

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
	// FormatDigest is a version notesbench makes for a server that has none:
	// the start of the SHA-256 of the content read or written. A digest has no
	// order, and two states with the same content share it.
	FormatDigest VersionFormat = "digest"
	// FormatOpaque is a server's own version whose make is unknown: an etag,
	// a revision id. It can be compared for equality only.
	FormatOpaque VersionFormat = "opaque"
)

// Ordered reports whether versions of the format increase with every write,
// so that their order can be checked: counters and timestamps do; digests
// and opaque versions have no order.
func (f VersionFormat) Ordered() bool {
	switch f {
	case FormatDigest, FormatOpaque:
		return false
	}
	return true
}

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

// KeyReuse is what a known idempotency key sent with other arguments gets.
type KeyReuse string

// The answers to a key reused with other arguments. The zero KeyReuse means
// KeyReplay.
const (
	// KeyReplay returns the first result, whatever the arguments: the
	// published connector, which the write-ups leave open.
	KeyReplay KeyReuse = "replay"
	// KeyRefuse refuses it as an invalid idempotency_key, as Stripe and the
	// IETF Idempotency-Key draft do: a resend must carry the first call's
	// arguments. The expected version is not compared, so that a resend with a
	// fresh version still finds its first result.
	KeyRefuse KeyReuse = "refuse"
)

// Variant selects which contract an implementation serves. The zero Variant is
// the published connector: guard note, counter versions, key checked first,
// a reused key replayed whatever its arguments.
type Variant struct {
	Guard         Guard         `json:"guard"`
	VersionFormat VersionFormat `json:"version_format"`
	Order         Order         `json:"order"`
	// KeyReuse is left out of the JSON when zero (replay), so that every
	// result and history of the published connector reads as it did.
	KeyReuse KeyReuse `json:"key_reuse,omitempty"`
}

// WithDefaults fills the zero fields of v with the published connector's.
func (v Variant) WithDefaults() Variant {
	if v.Guard == "" {
		v.Guard = GuardNote
	}
	if v.VersionFormat == "" {
		v.VersionFormat = FormatCounter
	}
	if v.Order == "" {
		v.Order = OrderKeyFirst
	}
	return v
}

// ValidateServed is Validate for the variant a server serves, whose versions
// may also be digests or opaque (ServedFormats).
func (v Variant) ValidateServed() error {
	f := v.VersionFormat
	if _, err := ServedFormats.Parse(string(f)); f != "" && err != nil {
		return err
	}
	v.VersionFormat = ""
	return v.Validate()
}

// Validate checks every field that is set, for a variant a store makes.
func (v Variant) Validate() error {
	if v.Guard != "" {
		if _, err := Guards.Parse(string(v.Guard)); err != nil {
			return err
		}
	}
	if v.VersionFormat != "" {
		if _, err := VersionFormats.Parse(string(v.VersionFormat)); err != nil {
			return err
		}
	}
	if v.Order != "" {
		if _, err := Orders.Parse(string(v.Order)); err != nil {
			return err
		}
	}
	if v.KeyReuse != "" {
		if _, err := KeyReuses.Parse(string(v.KeyReuse)); err != nil {
			return err
		}
	}
	return nil
}

// RefusesKeyReuse reports whether a known key sent with other arguments is
// refused (KeyRefuse).
func (v Variant) RefusesKeyReuse() bool { return v.KeyReuse == KeyRefuse }

func (v Variant) String() string {
	v = v.WithDefaults()
	s := fmt.Sprintf("guard %s, %s versions, %s", v.Guard, v.VersionFormat, v.Order)
	if v.RefusesKeyReuse() {
		s += ", a key reused with other arguments refused"
	}
	return s
}

// The enums of the contract variant, in the order errors list them.
var (
	Guards         = NewEnum("guard", GuardNone, GuardNote, GuardTab)
	VersionFormats = NewEnum("version format", FormatMS, FormatUSSuffix, FormatCounter)
	// ServedFormats are the formats a server's versions may be in: those a
	// store makes (VersionFormats), and the digests and opaque versions of a
	// server reached through a profile.
	ServedFormats = NewEnum("version format", FormatMS, FormatUSSuffix, FormatCounter, FormatDigest, FormatOpaque)
	Orders        = NewEnum("order", OrderKeyFirst, OrderVersionFirst)
	KeyReuses     = NewEnum("key reuse", KeyReplay, KeyRefuse)
)
