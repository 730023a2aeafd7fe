package sim

import (
	"context"

	"github.com/notesbench/notesbench/contract"
)

// OpenRun opens the backend of one run. A server (contract.Served) chooses
// its own variant and commits on its own clock, so its runs ask for neither;
// the experiments check beforehand, with CheckServed, that what they mean to
// measure is what it serves.
func OpenRun(ctx context.Context, t contract.Target, run contract.RunSpec) (contract.Backend, error) {
	if _, ok := t.(contract.Served); ok {
		run.Variant, run.Clock = contract.Variant{}, nil
	}
	return t.Open(ctx, run)
}

// CheckServed returns a field error naming name when target is a server that
// says what it serves and one of want asks for another: each want names the
// fields its runs depend on (create its order, race its guard and version
// format), and the fields it leaves zero may be anything. A server that does
// not say is taken at the word of the configuration: its rows are labelled
// with the variants the user declared.
func CheckServed(target contract.Target, name string, want ...contract.Variant) error {
	s, ok := target.(contract.Served)
	if !ok {
		return nil
	}
	served, known := s.Served()
	if !known {
		return nil
	}
	for _, w := range want {
		asked := served
		if w.Guard != "" {
			asked.Guard = w.Guard
		}
		if w.VersionFormat != "" {
			asked.VersionFormat = w.VersionFormat
		}
		if w.Order != "" {
			asked.Order = w.Order
		}
		if asked != served {
			return fieldErr(name, "the target serves %s, not %s", served, asked)
		}
	}
	return nil
}

// RecordedVariant is the variant a history's run names: the server's, when
// the target is a server that says what it serves (its versions may be
// digests or its own, whatever the configuration's defaults say), else v.
func RecordedVariant(target contract.Target, v contract.Variant) contract.Variant {
	if s, ok := target.(contract.Served); ok {
		if served, known := s.Served(); known {
			return served
		}
	}
	return v
}

// OnServer reports whether target is a server, whose variant runs cannot choose.
func OnServer(target contract.Target) bool {
	_, ok := target.(contract.Served)
	return ok
}

// serverDifference is the difference from the published setup a server makes:
// its contract is not the rebuild the published figures and our verdicts
// rest on, so its figures stand alone.
func serverDifference(target contract.Target) string {
	if !OnServer(target) {
		return ""
	}
	return "the contract served by " + target.Describe() + " (published: the write-up's rebuild)"
}

// StoreNote says what a run's Notes are kept in: a server's (servedNote), a
// PostgreSQL store's, or embedded, the words given.
func StoreNote(store string, target contract.Target, embedded string) string {
	switch {
	case OnServer(target):
		return servedNote(target)
	case store != "":
		return ", on PostgreSQL " + store
	}
	return embedded
}

// ClockOf names the clock of an experiment that runs one client on the
// virtual clock against an embedded store: a server commits on its own.
func ClockOf(target contract.Target) string {
	if OnServer(target) {
		return "the server's clock"
	}
	return "virtual clock"
}

// servedNote is what the description of a run says of its target: nothing for
// an embedded store, and for a server what it is.
func servedNote(target contract.Target) string {
	if !OnServer(target) {
		return ""
	}
	return ", against " + target.Describe()
}
