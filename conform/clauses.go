package conform

import (
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

// clause is one clause of the contract, declared once: its name, its text
// ({writers}, {pause} and {tools} filled in from the run), the capabilities
// its calls need, why a target cannot be held to it, and the check that runs
// it. The runner, the n/a rows and the output all read it.
type clause struct {
	name string
	text string
	// needs are the capabilities the check calls.
	needs []contract.Capability
	// unless says why a target whose writes carry m cannot be held to the
	// clause, or "" when it can.
	unless func(m contract.Mapping) string
	// onTarget says the check reads the target alone, before any session:
	// it runs even on a server that lacks a read and a write, to say so.
	onTarget bool
	// replicas says the clause is about a server run as several replicas
	// (contract.Replicated): it runs, and is listed, only on a target of
	// two or more.
	replicas bool
	run      func(r *runner, c results.ConformCheck) (results.ConformCheck, error)
}

// readWrite is what most clauses call.
var readWrite = []contract.Capability{contract.CapRead, contract.CapWrite}

// clauses are the clauses, in the order they run and are reported.
var clauses = []clause{{
	name:     "tools/list",
	text:     "tools/list carries {tools}",
	onTarget: true,
	run:      (*runner).tools,
}, {
	name:  "stale version",
	text:  "a write with a stale expected_version is refused with a conflict that reports the current version, and changes nothing",
	needs: readWrite,
	run:   (*runner).staleVersion,
}, {
	name:   "no expected_version",
	text:   "a write without expected_version is refused by the schema and changes nothing",
	needs:  readWrite,
	unless: all(noVersionParameter, versionNotOmittable),
	run:    (*runner).missingVersion,
}, {
	name:   "same-key resend",
	text:   "a resend with the same idempotency key returns the first result and writes once",
	needs:  readWrite,
	unless: noKey("a resend is a new write"),
	run:    (*runner).sameKeyResend,
}, {
	name:  "lost reply, create",
	text:  "a create whose reply was lost, resent with the same key, creates one tab, not two",
	needs: []contract.Capability{contract.CapCreate, contract.CapList},
	run:   (*runner).lostReplyCreate,
}, {
	name:   "versions increase",
	text:   "versions strictly increase across writes (commits {pause} apart)",
	needs:  readWrite,
	unless: unordered,
	run:    (*runner).versionsIncrease,
}, {
	name:   "writes within a millisecond",
	text:   "two writes committed within the same millisecond get distinct versions",
	needs:  readWrite,
	unless: noServerVersions,
	run:    (*runner).versionsWithinMillisecond,
}, {
	name:  "per-tab versions",
	text:  "when versions are per tab, a write to one tab does not conflict with a reader of another",
	needs: []contract.Capability{contract.CapCreate, contract.CapList, contract.CapEditTabs},
	run:   (*runner).perTabVersions,
}, {
	name:  "concurrent writers",
	text:  "{writers} writers with the same expected version at once: exactly one wins, the others conflict naming its version",
	needs: readWrite,
	run:   (*runner).concurrentWriters,
}, {
	name:   "same key, other arguments",
	text:   "a key sent again with other arguments makes no second write: it is refused, or replays the first result",
	needs:  readWrite,
	unless: noKey(""),
	run:    (*runner).sameKeyOtherArgs,
}, {
	name:   "same key, other tool",
	text:   "a key used by one tool, sent to another (the write-ups leave it open)",
	needs:  []contract.Capability{contract.CapRead, contract.CapWrite, contract.CapAddSource},
	unless: noKey(""),
	run:    (*runner).sameKeyOtherTool,
}, {
	name:   "resend after the version moved",
	text:   "a resend whose expected version went stale meanwhile: key checked first, or version first (the write-ups differ)",
	needs:  []contract.Capability{contract.CapCreate, contract.CapList},
	unless: noKey(""),
	run:    (*runner).staleResendOrder,
}, {
	name:     "resend to another replica",
	text:     "a resend to another replica returns the first result and writes once",
	needs:    readWrite,
	replicas: true,
	unless:   noKey("a resend is a new write"),
	run:      (*runner).replicaResend,
}, {
	name:     "write seen by another replica",
	text:     "a write on one replica is seen by the next read on another, and a stale version is refused there",
	needs:    readWrite,
	replicas: true,
	run:      (*runner).replicaReadWrite,
}}

// notApplicable says why the clause cannot be held against a target that
// has capable's capabilities and whose writes carry m, or "".
func (cl clause) notApplicable(capable contract.Capable, m contract.Mapping) string {
	if capable != nil {
		if err := capable.Require("the clause", cl.needs...); err != nil {
			return "not run: " + err.Error()
		}
	}
	if cl.unless != nil {
		return cl.unless(m)
	}
	return ""
}

// all is the first reason of reasons that holds.
func all(reasons ...func(contract.Mapping) string) func(contract.Mapping) string {
	return func(m contract.Mapping) string {
		for _, why := range reasons {
			if s := why(m); s != "" {
				return s
			}
		}
		return ""
	}
}

func noVersionParameter(m contract.Mapping) string {
	if m.VersionCheck {
		return ""
	}
	return "no version parameter: the profile's write sends no version to leave out"
}

func versionNotOmittable(m contract.Mapping) string {
	if m.VersionOmittable {
		return ""
	}
	return "the version cannot be left out: profile " + m.Profile + "'s write has {expected_version} inside a string " +
		"(as an SQL template does) or as an element of a list (bound values), not as the whole value of a member to drop"
}

// noKey is the reason of a clause about the idempotency key, with what
// follows from its absence.
func noKey(then string) func(contract.Mapping) string {
	return func(m contract.Mapping) string {
		switch {
		case m.Key:
			return ""
		case then == "":
			return "no idempotency key parameter"
		}
		return "no idempotency key parameter: " + then
	}
}

func unordered(m contract.Mapping) string {
	if m.VersionFormat.Ordered() {
		return ""
	}
	return versionsName(m.VersionFormat) + " have no order: they can be compared for equality only"
}

func noServerVersions(m contract.Mapping) string {
	if m.VersionFormat != contract.FormatDigest {
		return ""
	}
	return "no version: the server keeps none (notesbench's SHA-256 digests of the content stand in for it)"
}

// versionsName names versions of format f as what they are.
func versionsName(f contract.VersionFormat) string {
	switch f {
	case contract.FormatCounter:
		return "counter versions"
	case contract.FormatMS:
		return "ms versions (the commit time in milliseconds)"
	case contract.FormatUSSuffix:
		return "us-suffix versions (the commit time in microseconds and a random suffix)"
	case contract.FormatDigest:
		return "digest versions (notesbench's SHA-256 of the content, for a server that keeps no version)"
	case contract.FormatOpaque:
		return "opaque versions (the server's etag or revision)"
	case "":
		return "versions"
	}
	return string(f) + " versions"
}

// listedTools is what the tools/list clause holds the target to.
func listedTools(m contract.Mapping) string {
	if !m.Native() {
		return "the tools profile " + m.Profile + " calls"
	}
	return "the seven tools, with expected_version and idempotency_key required on the three writes"
}
