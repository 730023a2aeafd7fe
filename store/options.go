package store

import (
	"time"

	"github.com/notesbench/notesbench/contract"
)

// Options select the contract variant a Store implements. The zero value is the
// published connector: guard note, counter versions, key checked first,
// synchronous normal, the wall clock.
type Options struct {
	Guard         contract.Guard
	VersionFormat contract.VersionFormat
	Order         contract.Order
	// KeyReuse is what a known key sent with other arguments gets: replayed
	// (the zero value, as published) or refused (contract.KeyRefuse).
	KeyReuse    contract.KeyReuse
	Synchronous contract.Synchronous
	// Clock supplies the times of timestamp versions, tab IDs and attachment
	// creation times; the store never calls time.Now itself. Nil means the
	// wall clock.
	Clock contract.Clock
	// Seed seeds the random suffix of us-suffix versions, so that a run on the
	// virtual clock is reproducible.
	Seed uint64
	// QueueWrites runs the store's writes in a queue in Go, in arrival order,
	// on one writer connection that commits the writes waiting together (see
	// writeQueue), so that a writer waiting for another costs a hand-off
	// instead of the busy handler's pauses (1, 2, 5 … 100 ms between tries).
	// It is for many writers sharing one store, as a server's sessions do.
	// False keeps SQLite's busy handler alone, as separate processes with
	// their own connections have it: the published setup.
	QueueWrites bool
}

// withDefaults fills the zero fields of o with the published defaults.
func (o Options) withDefaults() Options {
	v := o.variant().WithDefaults()
	o.Guard, o.VersionFormat, o.Order = v.Guard, v.VersionFormat, v.Order
	if o.Synchronous == "" {
		o.Synchronous = contract.SyncNormal
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	return o
}

func (o Options) validate() error {
	if err := o.variant().Validate(); err != nil {
		return err
	}
	_, err := contract.SynchronousSettings.Parse(string(o.Synchronous))
	return err
}

func (o Options) variant() contract.Variant {
	return contract.Variant{Guard: o.Guard, VersionFormat: o.VersionFormat, Order: o.Order, KeyReuse: o.KeyReuse}
}

// wallClock is the default Clock: the only place the store reads the wall clock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
