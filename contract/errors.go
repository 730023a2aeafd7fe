package contract

import (
	"fmt"
	"strings"
)

// ConflictError is a version conflict: the write was based on a version that is no
// longer current. Nothing was written. It is a normal outcome, not a failure.
type ConflictError struct {
	// Current is the version the write would have had to name.
	Current Version
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("version conflict: current version is %s", e.Current)
}

// NotFoundError says that a Note, tab, sheet or idempotency target does not exist.
type NotFoundError struct {
	// Field is the argument that named the missing thing, e.g. "tab_id".
	Field string
	// ID is the value that was not found.
	ID string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s: %q not found", e.Field, e.ID)
}

// InvalidArgumentError says that an argument is malformed or not allowed for the
// operation. Field names the argument, as a JSON pointer for schema errors.
type InvalidArgumentError struct {
	Field   string
	Message string
}

func (e *InvalidArgumentError) Error() string {
	return e.Field + ": " + e.Message
}

// Invalid returns an InvalidArgumentError naming field, with a formatted message.
func Invalid(field, format string, args ...any) error {
	return &InvalidArgumentError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// SchemaError is a call whose arguments break the tool's input schema: every
// violation the JSON Schema validator found, sorted by path.
type SchemaError struct {
	Violations []Violation
}

func (e *SchemaError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = v.String()
	}
	return strings.Join(msgs, "; ")
}
