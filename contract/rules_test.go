package contract

import (
	"errors"
	"testing"
)

// A write request missing several required fields names the first of them, in
// the order the tools list them.
func TestWriteRequestsNameTheFirstMissingField(t *testing.T) {
	for _, tc := range []struct {
		req   interface{ Validate() error }
		field string
	}{
		{EditRequest{}, "note_id"},
		{EditRequest{NoteID: "n"}, "tab_id"},
		{EditRequest{NoteID: "n", TabID: "t"}, "expected_version"},
		{EditRequest{NoteID: "n", TabID: "t", ExpectedVersion: "1"}, "idempotency_key"},
		{EditRequest{NoteID: "n", TabID: "t", ExpectedVersion: "1", IdempotencyKey: "k"}, "operation"},
		{CreateRequest{}, "note_id"},
		{CreateRequest{NoteID: "n"}, "expected_version"},
		{CreateRequest{NoteID: "n", ExpectedVersion: "1"}, "idempotency_key"},
		{CreateRequest{NoteID: "n", ExpectedVersion: "1", IdempotencyKey: "k"}, "tab_type"},
		{SourceRequest{}, "note_id"},
		{SourceRequest{NoteID: "n"}, "expected_version"},
		{SourceRequest{NoteID: "n", ExpectedVersion: "1"}, "idempotency_key"},
		{SourceRequest{NoteID: "n", ExpectedVersion: "1", IdempotencyKey: "k"}, "title"},
	} {
		var bad *InvalidArgumentError
		if err := tc.req.Validate(); !errors.As(err, &bad) || bad.Field != tc.field {
			t.Errorf("%+v: %v, want an invalid argument naming %s", tc.req, err, tc.field)
		}
	}
}
