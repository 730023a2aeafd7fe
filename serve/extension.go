package serve

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
)

// The extension tools' names.
const (
	ToolDescribe   = ExtensionPrefix + "describe"
	ToolCreateNote = ExtensionPrefix + "create_note"
	ToolMoveTab    = ExtensionPrefix + "move_tab"
	ToolRenameTab  = ExtensionPrefix + "rename_tab"
	ToolAddTab     = ExtensionPrefix + "add_tab"
	ToolSetCells   = ExtensionPrefix + "set_cells"
	ToolSetText    = ExtensionPrefix + "set_text"
)

// PersonTools are the extension tools of the person's actions, in the order of
// contract.Person's methods.
var PersonTools = []string{ToolMoveTab, ToolRenameTab, ToolAddTab, ToolSetCells, ToolSetText}

// Describe is the result of notesbench_describe.
type Describe struct {
	Server  string           `json:"server"`
	Backend string           `json:"backend"`
	Variant contract.Variant `json:"variant"`
	Person  bool             `json:"person_actions"`
}

type extension struct {
	tool *mcp.Tool
	call callFunc
}

const notContract = " A notesbench extension, not part of the Notes contract."

func (s *Server) extensions() []extension {
	xs := []extension{
		{extTool(ToolDescribe, "Say what serves the contract here: the backend and the contract variant (version scope, version format, order of the key and version checks).", true,
			`{"type":"object","properties":{},"additionalProperties":false}`),
			func(context.Context, contract.Session, json.RawMessage) (json.RawMessage, error) {
				return json.Marshal(Describe{Server: "notesbench serve " + s.opts.Version, Backend: s.opts.Describe,
					Variant: s.opts.Variant.WithDefaults(), Person: s.person})
			}},
		{extTool(ToolCreateNote, "Create a Note with the three fixed tabs, an empty text and its first version, under the ID given; a Note that exists is an invalid argument. Set-up, not a tool of the contract: no version, no key.", false,
			`{"type":"object","required":["note_id"],"properties":{"note_id":{"type":"string","minLength":1}},"additionalProperties":false}`),
			func(ctx context.Context, _ contract.Session, args json.RawMessage) (json.RawMessage, error) {
				var a struct {
					NoteID *string `json:"note_id"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return outcome(err)
				}
				if err := required("note_id", a.NoteID != nil); err != nil {
					return outcome(err)
				}
				return respond(done(*a.NoteID), s.b.CreateNote(ctx, *a.NoteID))
			}},
	}
	if !s.person {
		return xs
	}
	return append(xs,
		extension{extTool(ToolMoveTab, "The person drags a tab to a position in the bar (0 is the first; past the end means last). Bumps the Note version like any save.", false,
			`{"type":"object","required":["note_id","tab_id","position"],"properties":{"note_id":{"type":"string","minLength":1},"tab_id":{"type":"string","minLength":1},"position":{"type":"integer","minimum":0}},"additionalProperties":false}`),
			func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
				var a struct {
					NoteID   *string `json:"note_id"`
					TabID    *string `json:"tab_id"`
					Position *int    `json:"position"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return outcome(err)
				}
				if err := required("note_id", a.NoteID != nil, "tab_id", a.TabID != nil, "position", a.Position != nil); err != nil {
					return outcome(err)
				}
				return respond(done(*a.NoteID), cs.(contract.Person).MoveTab(ctx, *a.NoteID, *a.TabID, *a.Position))
			}},
		extension{extTool(ToolRenameTab, "The person renames a tab; the label is trimmed and may repeat another's.", false,
			`{"type":"object","required":["note_id","tab_id","label"],"properties":{"note_id":{"type":"string","minLength":1},"tab_id":{"type":"string","minLength":1},"label":{"type":"string"}},"additionalProperties":false}`),
			func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
				var a struct {
					NoteID *string `json:"note_id"`
					TabID  *string `json:"tab_id"`
					Label  *string `json:"label"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return outcome(err)
				}
				if err := required("note_id", a.NoteID != nil, "tab_id", a.TabID != nil, "label", a.Label != nil); err != nil {
					return outcome(err)
				}
				return respond(done(*a.NoteID), cs.(contract.Person).RenameTab(ctx, *a.NoteID, *a.TabID, *a.Label))
			}},
		extension{extTool(ToolAddTab, "The person adds a Slides or Sheet tab at the end of the bar; returns the new tab.", false,
			`{"type":"object","required":["note_id","tab_type"],"properties":{"note_id":{"type":"string","minLength":1},"tab_type":{"type":"string","enum":["slides","sheet"]},"label":{"type":"string"}},"additionalProperties":false}`),
			func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
				var a struct {
					NoteID  *string          `json:"note_id"`
					TabType contract.TabType `json:"tab_type"`
					Label   string           `json:"label"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return outcome(err)
				}
				if err := required("note_id", a.NoteID != nil, "tab_type", a.TabType != ""); err != nil {
					return outcome(err)
				}
				return respond(cs.(contract.Person).AddTab(ctx, *a.NoteID, a.TabType, a.Label))
			}},
		extension{extTool(ToolSetCells, "The person types values into a Sheet tab at a start cell (sheet_id defaults to the first sheet).", false,
			`{"type":"object","required":["note_id","tab_id","values"],"properties":{"note_id":{"type":"string","minLength":1},"tab_id":{"type":"string","minLength":1},"sheet_id":{"type":"string"},"start_row":{"type":"integer","minimum":0},"start_col":{"type":"integer","minimum":0},"values":{"type":"array","items":{"type":"array"}}},"additionalProperties":false}`),
			func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
				var a struct {
					NoteID   *string `json:"note_id"`
					TabID    *string `json:"tab_id"`
					SheetID  string  `json:"sheet_id"`
					StartRow int     `json:"start_row"`
					StartCol int     `json:"start_col"`
					Values   [][]any `json:"values"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return outcome(err)
				}
				if err := required("note_id", a.NoteID != nil, "tab_id", a.TabID != nil, "values", a.Values != nil); err != nil {
					return outcome(err)
				}
				return respond(done(*a.NoteID), cs.(contract.Person).SetCells(ctx, *a.NoteID, *a.TabID, a.SheetID, a.StartRow, a.StartCol, a.Values))
			}},
		extension{extTool(ToolSetText, "The person types the whole text of the Note's markdown tab.", false,
			`{"type":"object","required":["note_id","text"],"properties":{"note_id":{"type":"string","minLength":1},"text":{"type":"string"}},"additionalProperties":false}`),
			func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
				var a struct {
					NoteID *string `json:"note_id"`
					Text   *string `json:"text"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return outcome(err)
				}
				if err := required("note_id", a.NoteID != nil, "text", a.Text != nil); err != nil {
					return outcome(err)
				}
				return respond(done(*a.NoteID), cs.(contract.Person).SetText(ctx, *a.NoteID, *a.Text))
			}},
	)
}

func extTool(name, description string, readOnly bool, schema string) *mcp.Tool {
	destructive := !readOnly
	return &mcp.Tool{
		Name:        name,
		Description: description + notContract,
		InputSchema: json.RawMessage(schema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &destructive},
		Meta:        mcp.Meta{MetaExtension: true},
	}
}

func done(noteID string) map[string]any { return map[string]any{"note_id": noteID, "done": true} }

// decodeArgs decodes an extension tool's arguments, refusing unknown fields.
func decodeArgs(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return contract.Invalid("arguments", "%v", err)
	}
	return nil
}

// required takes pairs of a field name and whether it is present, and returns
// an invalid argument naming the first missing one.
func required(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !pairs[i+1].(bool) {
			return contract.Invalid(pairs[i].(string), "required")
		}
	}
	return nil
}

// respond returns v as JSON, or err's contract outcome as a result object; any
// other error is a failure.
func respond(v any, err error) (json.RawMessage, error) {
	if err != nil {
		return outcome(err)
	}
	return json.Marshal(v)
}

func outcome(err error) (json.RawMessage, error) {
	if out, ok := contract.ResultOf(err); ok {
		return out, nil
	}
	return nil, err
}
