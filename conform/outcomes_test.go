package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

// run runs conform on target with a short within-a-millisecond clause,
// and returns the report and each check by name.
func run(t *testing.T, target contract.Target) (results.ConformReport, map[string]results.ConformCheck) {
	t.Helper()
	rep, err := Run(ctx, target, Options{FastTime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return rep, byName(t, rep)
}

// byName returns the checks of rep by name, after checking that rep has
// every clause, in order, and that every failure has its evidence.
func byName(t *testing.T, rep results.ConformReport) map[string]results.ConformCheck {
	t.Helper()
	var names []string
	for _, cl := range clauses {
		if !cl.replicas || rep.Replicas > 1 {
			names = append(names, cl.name)
		}
	}
	out := map[string]results.ConformCheck{}
	for i, c := range rep.Checks {
		if i >= len(names) || c.Name != names[i] {
			t.Fatalf("check %d is %q; want the clauses %q in order", i, c.Name, names)
		}
		if c.Outcome == results.ConformFail && len(c.Evidence) == 0 {
			t.Errorf("%s failed without evidence", c.Name)
		}
		out[c.Name] = c
	}
	if len(rep.Checks) != len(names) {
		t.Fatalf("%d checks; want the %d clauses", len(rep.Checks), len(names))
	}
	return out
}

// expect checks the outcome of each named check, and that its detail says
// what is given.
func expect(t *testing.T, checks map[string]results.ConformCheck, want map[string]results.ConformOutcome, details map[string]string) {
	t.Helper()
	for name, o := range want {
		if checks[name].Outcome != o {
			t.Errorf("%s: %s (%s), want %s", name, checks[name].Outcome, checks[name].Detail, o)
		}
	}
	for name, d := range details {
		if !strings.Contains(checks[name].Detail, d) {
			t.Errorf("%s: %q, want it to say %q", name, checks[name].Detail, d)
		}
	}
}

// sqlLike is a profile whose write is an SQL template with the version
// inside its string ("UPDATE … WHERE version = {expected_version}"): it
// checks the version, sends no key, cannot leave the version out, and its
// conflicts (an UPDATE that matched no row) name no current version.
func sqlLike(t *testing.T) (*profiled, *atomic.Int64) {
	var unversioned atomic.Int64
	f := &fake{trace: true, lacks: []contract.Capability{contract.CapCreate, contract.CapList, contract.CapAddSource, contract.CapEditTabs},
		edit: func(req contract.EditRequest, write func(contract.EditRequest) (contract.EditResult, error)) (contract.EditResult, error) {
			if req.ExpectedVersion == "" {
				// What the template would have bound: NULL.
				unversioned.Add(1)
				return contract.EditResult{}, errors.New("sql: a write with version NULL")
			}
			res, err := write(req)
			if _, ok := conflictOf(err); ok {
				return res, &contract.ConflictError{}
			}
			return res, err
		}}
	return &profiled{fake: f, mapping: contract.Mapping{Profile: "sql", VersionCheck: true, VersionOmittable: false,
		VersionFormat: contract.FormatCounter}}, &unversioned
}

// A profile whose version sits inside a string cannot leave it out: the
// clause of a write without one is n/a with the reason, no such write is
// sent, and every other clause runs; conflicts that name no current
// version pass, saying so.
func TestVersionInsideString(t *testing.T) {
	target, unversioned := sqlLike(t)
	rep, checks := run(t, target)
	expect(t, checks, map[string]results.ConformOutcome{
		"tools/list": results.ConformPass, "stale version": results.ConformPass, "no expected_version": results.ConformNotApplicable, "same-key resend": results.ConformNotApplicable,
		"lost reply, create": results.ConformNotApplicable, "versions increase": results.ConformPass, "per-tab versions": results.ConformNotApplicable,
		"concurrent writers": results.ConformPass, "same key, other arguments": results.ConformNotApplicable, "same key, other tool": results.ConformNotApplicable,
		"resend after the version moved": results.ConformNotApplicable,
	}, map[string]string{
		"no expected_version": "the version cannot be left out: profile sql's write has {expected_version} inside a string " +
			"(as an SQL template does) or as an element of a list (bound values), not as the whole value of a member to drop",
		"stale version":      "version_conflict naming no current version (the target's conflicts name none); text and version unchanged",
		"concurrent writers": "7 conflicts, which name no current version (the target's conflicts name none)",
		"versions increase":  "over 5 writes: counter versions, each greater",
		"lost reply, create": "not run: profile fake maps no create, which the clause needs",
	})
	if n := unversioned.Load(); n != 0 || rep.Failed != 0 {
		t.Errorf("%d writes sent without a version; %d failed", n, rep.Failed)
	}
}

// A call the target cannot make (errors.ErrUnsupported: a write its
// profile cannot express) makes its clause n/a with the reason, though the
// target claimed it could.
func TestUnsupportedCall(t *testing.T) {
	f := &fake{trace: true, edit: func(req contract.EditRequest, write func(contract.EditRequest) (contract.EditResult, error)) (contract.EditResult, error) {
		if req.ExpectedVersion == "" {
			return contract.EditResult{}, fmt.Errorf("profile p cannot send its write without {expected_version}: %w", errors.ErrUnsupported)
		}
		return write(req)
	}}
	rep, checks := run(t, &profiled{fake: f, mapping: contract.Mapping{Profile: "p", VersionCheck: true, Key: true, VersionOmittable: true}})
	expect(t, checks, with(map[string]results.ConformOutcome{"tools/list": results.ConformPass, "no expected_version": results.ConformNotApplicable}), map[string]string{
		"no expected_version": "not run: profile p cannot send its write without {expected_version}: unsupported operation",
	})
	if rep.Failed != 0 {
		t.Errorf("%d failed", rep.Failed)
	}
}

// Digests and opaque versions have no order: the clause that versions
// increase is n/a for them, not a pass. Versions are named as what they
// are, in the details and the report.
func TestUnorderedVersions(t *testing.T) {
	files := &profiled{fake: &fake{guard: contract.GuardNone, digests: true, trace: true,
		lacks: []contract.Capability{contract.CapCreate, contract.CapList, contract.CapEditTabs}},
		mapping: contract.Mapping{Profile: "files", VersionFormat: contract.FormatDigest}}
	rep, checks := run(t, files)
	expect(t, checks, map[string]results.ConformOutcome{
		"stale version": results.ConformFail, "no expected_version": results.ConformNotApplicable, "same-key resend": results.ConformNotApplicable,
		"versions increase": results.ConformNotApplicable, "writes within a millisecond": results.ConformNotApplicable, "concurrent writers": results.ConformFail,
	}, map[string]string{
		"stale version":               "the write with stale version sha256:",
		"no expected_version":         "no version parameter: the profile's write sends no version to leave out",
		"same-key resend":             "no idempotency key parameter: a resend is a new write",
		"versions increase":           "digest versions (notesbench's SHA-256 of the content, for a server that keeps no version) have no order",
		"writes within a millisecond": "no version: the server keeps none",
		"concurrent writers":          "8 of 8 writers won with expected version sha256:",
	})
	if rep.VersionFormat != contract.FormatDigest {
		t.Errorf("version format %q", rep.VersionFormat)
	}

	etags := &profiled{fake: &fake{}, mapping: contract.Mapping{Profile: "etags", VersionCheck: true, Key: true, VersionOmittable: true,
		VersionFormat: contract.FormatOpaque}}
	rep, checks = run(t, etags)
	expect(t, checks, map[string]results.ConformOutcome{"stale version": results.ConformPass, "versions increase": results.ConformNotApplicable, "concurrent writers": results.ConformPass},
		map[string]string{"versions increase": "opaque versions (the server's etag or revision) have no order: they can be compared for equality only"})
	if rep.VersionFormat != contract.FormatOpaque || checks["writes within a millisecond"].Outcome == results.ConformNotApplicable {
		t.Errorf("version format %q; %+v", rep.VersionFormat, checks["writes within a millisecond"])
	}
}

// A server that applies a reused key's other arguments as a second write
// fails the clause, naming the version it made; one that replays the first
// result passes it (TestVariants: default).
func TestKeyReusedForASecondWriteFails(t *testing.T) {
	f := &fake{edit: func(req contract.EditRequest, write func(contract.EditRequest) (contract.EditResult, error)) (contract.EditResult, error) {
		if strings.Contains(req.Text, "conform: other arguments") {
			req.IdempotencyKey += "-as-new" // the key is not looked at: a new write
		}
		return write(req)
	}}
	_, checks := run(t, f)
	c := checks["same key, other arguments"]
	if c.Outcome != results.ConformFail || !strings.Contains(c.Detail, "the other arguments were applied as a second write under the same key (version ") {
		t.Errorf("%s: %s", c.Outcome, c.Detail)
	}
}

// A server error is evidence, not the end of the run: the clause whose
// write or read got it fails with the request and the reply, and every
// other clause runs to its usual verdict. The evidence is the typed request
// and the error, or, from a session that traces its calls, the wire's.
func TestServerErrorFailsOneClause(t *testing.T) {
	const broken = "database disk image is malformed"
	for _, tc := range []struct {
		name   string
		fake   func() *fake
		clause string
		detail string
		tool   string // of the last exchange of the evidence
		sent   string // what its request says
	}{
		{"write", func() *fake {
			return &fake{edit: func(req contract.EditRequest, write func(contract.EditRequest) (contract.EditResult, error)) (contract.EditResult, error) {
				if strings.HasSuffix(req.Text, "conform: written once") {
					return contract.EditResult{}, errors.New(broken)
				}
				return write(req)
			}}
		}, "same-key resend", "the first write got info (failure): " + broken, contract.ToolEditNoteTab, `conform: written once"`},
		{"read", func() *fake {
			var once atomic.Bool
			return &fake{read: func(t contract.TabContent) error {
				if strings.Contains(t.Text, "conform: racer") && once.CompareAndSwap(false, true) {
					return contract.Indeterminatef(contract.KindTimeout, broken)
				}
				return nil
			}}
		}, "concurrent writers", "the read after the writers got info (timeout): " + broken, contract.ToolReadNoteTab, `"tab_id":"markdown"`},
	} {
		for _, traced := range []bool{false, true} {
			f := tc.fake()
			f.trace = traced
			_, checks := run(t, f)
			expect(t, checks, with(map[string]results.ConformOutcome{tc.clause: results.ConformFail}), map[string]string{tc.clause: tc.detail})
			ev := checks[tc.clause].Evidence
			if len(ev) == 0 {
				continue // expect said so
			}
			last := ev[len(ev)-1]
			tool, reply := tc.tool, last.Error
			if traced {
				tool, reply = "fake_"+tc.tool, string(last.Reply)
			}
			if last.Tool != tool || !strings.Contains(string(last.Request), tc.sent) || !strings.Contains(reply, broken) {
				t.Errorf("%s, traced %v: evidence %+v", tc.name, traced, ev)
			}
		}
	}
}

// The concurrent writers' conflicts must name the winner's version: a
// server whose conflicts name the version the write expected fails the
// clause, as it fails the stale-version one.
func TestConflictNamingWrongVersion(t *testing.T) {
	f := &fake{edit: func(req contract.EditRequest, write func(contract.EditRequest) (contract.EditResult, error)) (contract.EditResult, error) {
		res, err := write(req)
		if _, ok := conflictOf(err); ok {
			return res, &contract.ConflictError{Current: req.ExpectedVersion}
		}
		return res, err
	}}
	_, checks := run(t, f)
	expect(t, checks, map[string]results.ConformOutcome{"stale version": results.ConformFail, "concurrent writers": results.ConformFail}, map[string]string{
		"stale version":      "the conflict reports version 1; the current version is 2",
		"concurrent writers": "; the others got version_conflict (current ",
	})
	c := checks["concurrent writers"]
	won, _, _ := strings.Cut(strings.TrimPrefix(c.Detail, "one won (version "), ")")
	if strings.Contains(c.Detail, "(current "+won+")") {
		t.Errorf("the conflicts named the winner's version %s: %s", won, c.Detail)
	}

	// Through a profile, a conflict that names no version is no failure;
	// one that names the wrong version still is.
	_, checks = run(t, &profiled{fake: f, mapping: contract.Mapping{Profile: "p", VersionCheck: true, Key: true, VersionOmittable: true}})
	expect(t, checks, map[string]results.ConformOutcome{"concurrent writers": results.ConformFail}, nil)
}

// Only notesbench's own faults end a run: a ctx cancelled mid-run ends it
// with the ctx's error, the clauses checked so far in the report.
func TestCancelEndsRun(t *testing.T) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := &fake{edit: func(req contract.EditRequest, write func(contract.EditRequest) (contract.EditResult, error)) (contract.EditResult, error) {
		if strings.HasSuffix(req.Text, "conform: increase 0") {
			cancel()
			return contract.EditResult{}, cctx.Err()
		}
		return write(req)
	}}
	rep, err := Run(cctx, f, Options{})
	if !errors.Is(err, context.Canceled) || len(rep.Checks) != 5 || rep.Checks[4].Name != "lost reply, create" {
		t.Fatalf("%v; %d checks", err, len(rep.Checks))
	}
}
