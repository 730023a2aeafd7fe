package serve

import (
	"context"
	"encoding/json"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// extension is one extension tool and how the server answers it.
type extension struct {
	tool ext.ListedTool
	call callFunc
}

// extensions returns the extension tools the server lists: describe and
// create_note, and the person's actions when the Backend's sessions offer
// them. Each decodes its arguments with ext.Decode, which checks them against
// the tool's schema.
func (s *Server) extensions() []extension {
	calls := map[string]callFunc{
		ext.ToolDescribe: func(ctx context.Context, _ contract.Session, args json.RawMessage) (json.RawMessage, error) {
			if string(args) != "{}" { // no arguments, the usual call: nothing to check
				if err := ext.Decode(ext.ToolDescribe, args, &struct{}{}); err != nil {
					return outcome(err)
				}
			}
			return json.Marshal(ext.Describe{Server: "notesbench serve " + s.opts.Version, Backend: s.redact(s.opts.Describe),
				Variant: s.opts.Variant.WithDefaults(), Person: s.person})
		},
		ext.ToolCreateNote: func(ctx context.Context, _ contract.Session, args json.RawMessage) (json.RawMessage, error) {
			var r ext.CreateNoteRequest
			if err := ext.Decode(ext.ToolCreateNote, args, &r); err != nil {
				return outcome(err)
			}
			return respond(ext.Done{NoteID: r.NoteID, Done: true}, s.b.CreateNote(ctx, r.NoteID))
		},
		ext.ToolMoveTab: func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
			var r ext.MoveTabRequest
			if err := ext.Decode(ext.ToolMoveTab, args, &r); err != nil {
				return outcome(err)
			}
			return respond(ext.Done{NoteID: r.NoteID, Done: true}, cs.(contract.Person).MoveTab(ctx, r.NoteID, r.TabID, r.Position))
		},
		ext.ToolRenameTab: func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
			var r ext.RenameTabRequest
			if err := ext.Decode(ext.ToolRenameTab, args, &r); err != nil {
				return outcome(err)
			}
			return respond(ext.Done{NoteID: r.NoteID, Done: true}, cs.(contract.Person).RenameTab(ctx, r.NoteID, r.TabID, r.Label))
		},
		ext.ToolAddTab: func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
			var r ext.AddTabRequest
			if err := ext.Decode(ext.ToolAddTab, args, &r); err != nil {
				return outcome(err)
			}
			return respond(cs.(contract.Person).AddTab(ctx, r.NoteID, r.TabType, r.Label))
		},
		ext.ToolSetCells: func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
			var r ext.SetCellsRequest
			if err := ext.Decode(ext.ToolSetCells, args, &r); err != nil {
				return outcome(err)
			}
			return respond(ext.Done{NoteID: r.NoteID, Done: true},
				cs.(contract.Person).SetCells(ctx, r.NoteID, r.TabID, r.SheetID, r.StartRow, r.StartCol, r.Values))
		},
		ext.ToolSetText: func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
			var r ext.SetTextRequest
			if err := ext.Decode(ext.ToolSetText, args, &r); err != nil {
				return outcome(err)
			}
			return respond(ext.Done{NoteID: r.NoteID, Done: true}, cs.(contract.Person).SetText(ctx, r.NoteID, r.Text))
		},
	}
	var xs []extension
	for _, t := range ext.Tools() {
		if t.Person && !s.person {
			continue
		}
		xs = append(xs, extension{tool: t, call: calls[t.Name]})
	}
	return xs
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
