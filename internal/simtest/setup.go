package simtest

import (
	"context"

	"github.com/notesbench/notesbench/contract"
)

// FailingSetup is a target but for the runs of seed Bad, whose Note the
// server does not make, as a store two writers destroyed refused to.
type FailingSetup struct {
	contract.Target
	Bad uint64
}

func (t FailingSetup) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.Target.Open(ctx, run)
	if err != nil || run.Seed != t.Bad {
		return b, err
	}
	return refusesNotes{b}, nil
}

type refusesNotes struct{ contract.Backend }

func (refusesNotes) CreateNote(context.Context, string) error {
	return &contract.RefusedError{Tool: "create_entities", Reply: "the store does not parse: Unexpected non-whitespace character after JSON"}
}
