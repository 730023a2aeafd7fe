package conform

import (
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

// The clauses of a server run as several replicas behind a load balancer,
// where each call may reach another process: a version check and an
// idempotency key hold only if the replicas share them. Each opens a session
// on the first replica and one on the second (contract.Replicated), and
// sends a call to each on purpose.

// replicaPair opens a session on replica 1 and one on replica 2 (0 and 1).
func (r *runner) replicaPair() (one, two *session, err error) {
	rb, ok := r.b.(contract.Replicated)
	if !ok || rb.Replicas() < 2 {
		return nil, nil, fmt.Errorf("the target is not served by several replicas")
	}
	var s [2]*session
	for i := range s {
		cs, err := rb.ReplicaSession(r.ctx, i)
		if err != nil {
			return nil, nil, fmt.Errorf("opening a session on replica %d: %w", i+1, err)
		}
		s[i] = r.track(cs)
	}
	return s[0], s[1], nil
}

func (r *runner) replicaResend(c results.ConformCheck) (results.ConformCheck, error) {
	one, two, err := r.replicaPair()
	if err != nil {
		return c, err
	}
	defer r.release([]*session{one, two})
	base, err := r.read(one)
	if err != nil {
		return c, ended("the first read, on replica 1", err)
	}
	r.pause()
	key, text := r.key("replica-resend"), extend(base.Text, "conform: written once across replicas")
	first, err := r.write(one, base.Version, key, text)
	if err != nil {
		return r.fail(c, "the first write, on replica 1, got %s", describe(err))
	}
	r.pause()
	again, err := r.write(two, base.Version, key, text)
	if err != nil {
		return r.fail(c, "the resend to replica 2 (the same key and arguments) got %s instead of the first result: replica 2 did not find the key replica 1 stored", describe(err))
	}
	after, err := r.read(two)
	if err != nil {
		return c, ended("the read after the resend, on replica 2", err)
	}
	switch {
	case again.Version != first.Version:
		return r.fail(c, "the resend to replica 2 returned version %s; the first write, on replica 1, returned %s", again.Version, first.Version)
	case after.Version != first.Version || after.Text != text:
		return r.fail(c, "the resend wrote again on replica 2: version %s after it, %s after the first write", after.Version, first.Version)
	}
	replayed := "without"
	if again.Replayed {
		replayed = "with"
	}
	return pass(c, "replica 2 returned replica 1's first result (version %s), %s \"replayed\": true; written once", again.Version, replayed)
}

func (r *runner) replicaReadWrite(c results.ConformCheck) (results.ConformCheck, error) {
	one, two, err := r.replicaPair()
	if err != nil {
		return c, err
	}
	defer r.release([]*session{one, two})
	base, err := r.read(one)
	if err != nil {
		return c, ended("the first read, on replica 1", err)
	}
	r.pause()
	const line = "conform: written on replica 1"
	first, err := r.write(one, base.Version, r.key("replica-write"), extend(base.Text, line))
	if err != nil {
		return r.fail(c, "the write on replica 1 got %s", describe(err))
	}
	seen, err := r.read(two)
	if err != nil {
		return c, ended("the read on replica 2", err)
	}
	if seen.Version != first.Version || !strings.Contains(seen.Text, line) {
		return r.fail(c, "the read on replica 2 right after the write on replica 1 saw version %s without the line written; the write returned version %s", seen.Version, first.Version)
	}
	r.pause()
	_, stale := r.write(two, base.Version, r.key("replica-stale"), extend(base.Text, "conform: stale write on replica 2"))
	after, err := r.read(one)
	if err != nil {
		return c, ended("the read after the stale write, on replica 1", err)
	}
	why := ""
	if !r.m.VersionCheck {
		why = ": the profile's write sends no version the server checks, so a stale write cannot be refused"
	}
	conflict, isConflict := conflictOf(stale)
	switch {
	case stale == nil:
		return r.fail(c, "the write on replica 2 with stale version %s (replica 1 had moved it to %s) got ok%s", base.Version, first.Version, why)
	case !isConflict:
		return r.fail(c, "the write on replica 2 with stale version %s got %s, not a conflict%s", base.Version, describe(stale), why)
	case changed(seen, after):
		return r.fail(c, "the write refused on replica 2 changed the Note (version %s to %s)", seen.Version, after.Version)
	case conflict.Current != "" && conflict.Current != first.Version:
		return r.fail(c, "replica 2's conflict reports version %s; replica 1 wrote %s", conflict.Current, first.Version)
	}
	return pass(c, "replica 2 read version %s, written on replica 1, and refused stale version %s with %s", first.Version, base.Version, describe(stale))
}
