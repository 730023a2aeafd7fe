package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Call is the JSON layer an MCP server exposes, over any Session: it validates
// args against the tool's input schema, calls the typed tool and returns its
// result as JSON. Contract outcomes are results, not errors (see ResultOf).
// The returned error is for failures of the implementation itself (a broken
// database, a cancelled ctx, a dead server).
func Call(ctx context.Context, s Session, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := call(ctx, s, tool, args)
	if err == nil {
		return json.Marshal(res)
	}
	if out, ok := ResultOf(err); ok {
		return out, nil
	}
	return nil, err
}

// ResultOf returns the result object a contract error is reported as, and false
// for an error that is not a contract outcome:
//
//	{"error": "version_conflict", "current_version": 8}
//	{"error": "not_found", "field": "tab_id", "message": "…"}
//	{"error": "invalid_argument", "field": "/slides", "message": "…", "violations": […]}
func ResultOf(err error) (json.RawMessage, bool) {
	var conflict *ConflictError
	var notFound *NotFoundError
	var bad *InvalidArgumentError
	var schemaErr *SchemaError
	var v any
	switch {
	case errors.As(err, &conflict):
		v = map[string]any{"error": ErrVersionConflict, "current_version": conflict.Current}
	case errors.As(err, &notFound):
		v = map[string]any{"error": ErrNotFound, "field": notFound.Field, "id": notFound.ID, "message": notFound.Error()}
	case errors.As(err, &schemaErr):
		v = map[string]any{"error": ErrInvalidArgument, "field": schemaErr.Violations[0].Path,
			"message": schemaErr.Error(), "violations": schemaErr.Violations}
	case errors.As(err, &bad):
		v = map[string]any{"error": ErrInvalidArgument, "field": bad.Field, "message": bad.Error()}
	default:
		return nil, false
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

// IsOutcome reports whether err is a contract outcome (a version conflict, a
// Note or tab not found, an invalid argument), which a tool reports as its
// result (see ResultOf), rather than a failure of the implementation.
func IsOutcome(err error) bool {
	var (
		conflict  *ConflictError
		notFound  *NotFoundError
		bad       *InvalidArgumentError
		schemaErr *SchemaError
	)
	return errors.As(err, &conflict) || errors.As(err, &notFound) || errors.As(err, &bad) || errors.As(err, &schemaErr)
}

// The "error" values of a contract outcome's result object.
const (
	ErrVersionConflict = "version_conflict"
	ErrNotFound        = "not_found"
	ErrInvalidArgument = "invalid_argument"
)

// ErrorOf turns a result object back into the contract error it reports: the
// inverse of ResultOf, for clients that receive results as JSON. It returns nil
// for a result that is not an error object.
func ErrorOf(result json.RawMessage) error {
	var r struct {
		Error          string      `json:"error"`
		CurrentVersion Version     `json:"current_version"`
		Field          string      `json:"field"`
		ID             string      `json:"id"`
		Message        string      `json:"message"`
		Violations     []Violation `json:"violations"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	switch r.Error {
	case ErrVersionConflict:
		return &ConflictError{Current: r.CurrentVersion}
	case ErrNotFound:
		return &NotFoundError{Field: r.Field, ID: r.ID}
	case ErrInvalidArgument:
		if len(r.Violations) > 0 {
			return &SchemaError{Violations: r.Violations}
		}
		return &InvalidArgumentError{Field: r.Field, Message: strings.TrimPrefix(r.Message, r.Field+": ")}
	}
	return nil
}

func call(ctx context.Context, s Session, tool string, args json.RawMessage) (any, error) {
	violations, err := ValidateArgs(tool, args)
	if err != nil {
		return nil, err
	}
	if len(violations) > 0 {
		return nil, &SchemaError{Violations: violations}
	}
	switch tool {
	case ToolListNoteTabs:
		var a struct {
			NoteID string `json:"note_id"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		return s.ListNoteTabs(ctx, a.NoteID)
	case ToolReadNoteTab:
		var a struct {
			NoteID string `json:"note_id"`
			TabID  string `json:"tab_id"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		return s.ReadNoteTab(ctx, a.NoteID, a.TabID)
	case ToolReadSheetRange:
		return callTyped(ctx, args, s.ReadSheetRange)
	case ToolListNoteAttachments:
		return callTyped(ctx, args, s.ListNoteAttachments)
	case ToolEditNoteTab:
		req, err := decodeEdit(args)
		if err != nil {
			return nil, err
		}
		return s.EditNoteTab(ctx, req)
	case ToolCreateNoteTab:
		return callTyped(ctx, args, s.CreateNoteTab)
	case ToolAddNoteSource:
		return callTyped(ctx, args, s.AddNoteSource)
	}
	return nil, Invalid("tool", "unknown tool %q", tool)
}

func callTyped[Req, Res any](ctx context.Context, args json.RawMessage, fn func(context.Context, Req) (Res, error)) (any, error) {
	var req Req
	if err := decodeArgs(args, &req); err != nil {
		return nil, err
	}
	return fn(ctx, req)
}

// decodeArgs decodes schema-valid arguments into a request. The schema already
// rejected unknown fields where the tool forbids them; the read tools ignore them.
func decodeArgs(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return Invalid("arguments", "%v", err)
	}
	return nil
}

// editArgs is edit_note_tab's arguments as the JSON layer reads them: the
// request, and whether text and title were sent at all, which the request's
// strings cannot tell from empty ones.
type editArgs struct {
	EditRequest
	Text  *string `json:"text"`
	Title *string `json:"title"`
}

// decodeEdit decodes schema-valid edit_note_tab arguments and checks that
// the field the operation needs is there: replace_text without text is not
// an empty text but a request that forgot it, refused as a violation at
// /text, like a field the schema requires; likewise data, title, slides and
// values for the other operations.
func decodeEdit(args json.RawMessage) (EditRequest, error) {
	var a editArgs
	if err := decodeArgs(args, &a); err != nil {
		return EditRequest{}, err
	}
	req := a.EditRequest
	if a.Text != nil {
		req.Text = *a.Text
	}
	if a.Title != nil {
		req.Title = *a.Title
	}
	var field string
	switch req.Operation {
	case OpReplaceText:
		field = missing("text", a.Text != nil)
	case OpReplaceTabData:
		field = missing("data", len(req.Data) > 0)
	case OpSlideAdd:
		field = missing("title", a.Title != nil)
	case OpSlidesAddOutline:
		field = missing("slides", req.Slides != nil)
	case OpSheetSetRange:
		field = missing("values", req.Values != nil)
	}
	if field != "" {
		return EditRequest{}, &SchemaError{Violations: []Violation{violation("/"+field, "required", "by "+string(req.Operation),
			field+" is missing: operation "+string(req.Operation)+" needs it")}}
	}
	return req, nil
}

// missing returns field when it is not present, else "".
func missing(field string, present bool) string {
	if present {
		return ""
	}
	return field
}
