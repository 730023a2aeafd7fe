package store

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

// Call is the JSON layer an MCP server exposes: it validates args against the
// tool's schema, calls the typed tool and returns its result as JSON. Version
// conflicts, unknown notes or tabs and invalid arguments are normal results:
//
//	{"error": "version_conflict", "current_version": 8}
//	{"error": "not_found", "field": "tab_id", "message": "…"}
//	{"error": "invalid_argument", "field": "/slides", "message": "…", "violations": […]}
//
// A replayed key returns the first result with "replayed": true. The returned
// error is for failures of the store itself (a broken database, a cancelled ctx).
func (c *Conn) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := c.call(ctx, tool, args)
	if err == nil {
		return json.Marshal(res)
	}
	var conflict *ConflictError
	var notFound *NotFoundError
	var bad *InvalidArgumentError
	var schemaErr *schemaError
	switch {
	case errors.As(err, &conflict):
		return json.Marshal(map[string]any{"error": "version_conflict", "current_version": conflict.Current})
	case errors.As(err, &notFound):
		return json.Marshal(map[string]any{"error": "not_found", "field": notFound.Field, "message": notFound.Error()})
	case errors.As(err, &schemaErr):
		msgs := make([]string, len(schemaErr.violations))
		for i, v := range schemaErr.violations {
			msgs[i] = v.String()
		}
		return json.Marshal(map[string]any{"error": "invalid_argument", "field": schemaErr.violations[0].Path,
			"message": strings.Join(msgs, "; "), "violations": schemaErr.violations})
	case errors.As(err, &bad):
		return json.Marshal(map[string]any{"error": "invalid_argument", "field": bad.Field, "message": bad.Error()})
	}
	return nil, err
}

// schemaError carries the violations of a call that failed schema validation.
type schemaError struct{ violations []Violation }

func (e *schemaError) Error() string { return e.violations[0].String() }

func (c *Conn) call(ctx context.Context, tool string, args json.RawMessage) (any, error) {
	violations, err := ValidateArgs(tool, args)
	if err != nil {
		return nil, err
	}
	if len(violations) > 0 {
		return nil, &schemaError{violations}
	}
	switch tool {
	case "list_note_tabs":
		var a struct {
			NoteID string `json:"note_id"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		return c.ListNoteTabs(ctx, a.NoteID)
	case "read_note_tab":
		var a struct {
			NoteID string `json:"note_id"`
			TabID  string `json:"tab_id"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		return c.ReadNoteTab(ctx, a.NoteID, a.TabID)
	case "read_sheet_range":
		return callTyped(ctx, args, c.ReadSheetRange)
	case "list_note_attachments":
		return callTyped(ctx, args, c.ListNoteAttachments)
	case "edit_note_tab":
		return callTyped(ctx, args, c.EditNoteTab)
	case "create_note_tab":
		return callTyped(ctx, args, c.CreateNoteTab)
	case "add_note_source":
		return callTyped(ctx, args, c.AddNoteSource)
	}
	return nil, invalid("tool", "unknown tool %q", tool)
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
		return invalid("arguments", "%v", err)
	}
	return nil
}
