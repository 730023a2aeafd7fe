// Package ext is notesbench's extension of the Notes contract over MCP: the
// tools a server may list beside the seven, for what the seven do not give an
// experiment (a fresh Note for each run, the person's actions in the app, what
// the server serves). serve lists and answers them; mcpclient calls them. Both
// take their names, requests, results and input schemas from here, so that
// neither needs the other.
//
// The extension tools are not part of the Notes contract: their names start
// with Prefix, their _meta carries MetaKey: true, and a server lists them only
// to a client whose initialize declares the experimental capability
// Capability (notesbench's own client does), unless told to list them to
// every client. The person's actions write with no version check and no key,
// as a person's save in the app does: a client that does not know that must
// not be shown them.
//
// ext imports the contract and nothing else of the project.
package ext

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// Prefix starts the name of every extension tool.
const Prefix = "notesbench_"

// MetaKey is the _meta key that marks an extension tool, with the value true.
const MetaKey = "notesbench/extension"

// Capability is the key of the experimental client capability by which a
// client asks, in its initialize request, to be shown the extension tools.
const Capability = "notesbench/extensions"

// The extension tools' names.
const (
	ToolDescribe   = Prefix + "describe"
	ToolCreateNote = Prefix + "create_note"
	ToolMoveTab    = Prefix + "move_tab"
	ToolRenameTab  = Prefix + "rename_tab"
	ToolAddTab     = Prefix + "add_tab"
	ToolSetCells   = Prefix + "set_cells"
	ToolSetText    = Prefix + "set_text"
)

// PersonTools are the extension tools of the person's actions, in the order
// of contract.Person's methods.
var PersonTools = []string{ToolMoveTab, ToolRenameTab, ToolAddTab, ToolSetCells, ToolSetText}

// Describe is the result of notesbench_describe: what serves the contract.
type Describe struct {
	// Server names the server and its version: "notesbench serve v1.2".
	Server string `json:"server"`
	// Backend says in a few words what holds the Notes: "SQLite 3.54.1
	// (…), file notesbench.db". It names no absolute path.
	Backend string           `json:"backend"`
	Variant contract.Variant `json:"variant"`
	// Person says the person's actions are offered.
	Person bool `json:"person_actions"`
}

// CreateNoteRequest is the arguments of notesbench_create_note.
type CreateNoteRequest struct {
	NoteID string `json:"note_id"`
}

// MoveTabRequest is the arguments of notesbench_move_tab (contract.Person.MoveTab).
type MoveTabRequest struct {
	NoteID   string `json:"note_id"`
	TabID    string `json:"tab_id"`
	Position int    `json:"position"`
}

// RenameTabRequest is the arguments of notesbench_rename_tab (contract.Person.RenameTab).
type RenameTabRequest struct {
	NoteID string `json:"note_id"`
	TabID  string `json:"tab_id"`
	Label  string `json:"label"`
}

// AddTabRequest is the arguments of notesbench_add_tab (contract.Person.AddTab);
// its result is a contract.TabInfo.
type AddTabRequest struct {
	NoteID  string           `json:"note_id"`
	TabType contract.TabType `json:"tab_type"`
	Label   string           `json:"label,omitempty"`
}

// SetCellsRequest is the arguments of notesbench_set_cells (contract.Person.SetCells).
type SetCellsRequest struct {
	NoteID   string  `json:"note_id"`
	TabID    string  `json:"tab_id"`
	SheetID  string  `json:"sheet_id,omitempty"`
	StartRow int     `json:"start_row,omitempty"`
	StartCol int     `json:"start_col,omitempty"`
	Values   [][]any `json:"values"`
}

// SetTextRequest is the arguments of notesbench_set_text (contract.Person.SetText).
type SetTextRequest struct {
	NoteID string `json:"note_id"`
	Text   string `json:"text"`
}

// Done is the result of the extension tools that return nothing else: the
// Note they changed.
type Done struct {
	NoteID string `json:"note_id"`
	Done   bool   `json:"done"`
}

// ListedTool is one extension tool as a server lists it.
type ListedTool struct {
	Name        string
	Description string
	ReadOnly    bool
	// Person says the tool is one of the person's actions, listed only by a
	// server whose sessions implement contract.Person.
	Person      bool
	InputSchema json.RawMessage
}

// NotContract ends the description of every extension tool.
const NotContract = " A notesbench extension, not part of the Notes contract."

var tools = []ListedTool{
	{Name: ToolDescribe, ReadOnly: true,
		Description: "Say what serves the contract here: the backend and the contract variant (version scope, version format, order of the key and version checks).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
	{Name: ToolCreateNote,
		Description: "Create a Note with the three fixed tabs, an empty text and its first version, under the ID given; a Note that exists is an invalid argument. Set-up, not a tool of the contract: no version, no key.",
		InputSchema: json.RawMessage(`{"type":"object","required":["note_id"],"properties":{"note_id":{"type":"string","minLength":1}},"additionalProperties":false}`)},
	{Name: ToolMoveTab, Person: true,
		Description: "The person drags a tab to a position in the bar (0 is the first; past the end means last). Bumps the Note version like any save, with no version check.",
		InputSchema: json.RawMessage(`{"type":"object","required":["note_id","tab_id","position"],"properties":{"note_id":{"type":"string","minLength":1},"tab_id":{"type":"string","minLength":1},"position":{"type":"integer","minimum":0}},"additionalProperties":false}`)},
	{Name: ToolRenameTab, Person: true,
		Description: "The person renames a tab, with no version check; the label is trimmed and may repeat another's.",
		InputSchema: json.RawMessage(`{"type":"object","required":["note_id","tab_id","label"],"properties":{"note_id":{"type":"string","minLength":1},"tab_id":{"type":"string","minLength":1},"label":{"type":"string"}},"additionalProperties":false}`)},
	{Name: ToolAddTab, Person: true,
		Description: "The person adds a Slides or Sheet tab at the end of the bar, with no version check; returns the new tab.",
		InputSchema: json.RawMessage(`{"type":"object","required":["note_id","tab_type"],"properties":{"note_id":{"type":"string","minLength":1},"tab_type":{"type":"string","enum":["slides","sheet"]},"label":{"type":"string"}},"additionalProperties":false}`)},
	{Name: ToolSetCells, Person: true,
		Description: "The person types values into a Sheet tab at a start cell (sheet_id defaults to the first sheet), with no version check.",
		InputSchema: json.RawMessage(`{"type":"object","required":["note_id","tab_id","values"],"properties":{"note_id":{"type":"string","minLength":1},"tab_id":{"type":"string","minLength":1},"sheet_id":{"type":"string"},"start_row":{"type":"integer","minimum":0},"start_col":{"type":"integer","minimum":0},"values":{"type":"array","items":{"type":"array"}}},"additionalProperties":false}`)},
	{Name: ToolSetText, Person: true,
		Description: "The person types the whole text of the Note's markdown tab, with no version check.",
		InputSchema: json.RawMessage(`{"type":"object","required":["note_id","text"],"properties":{"note_id":{"type":"string","minLength":1},"text":{"type":"string"}},"additionalProperties":false}`)},
}

// Tools returns the extension tools, describe and create_note first, then the
// person's actions in the order of PersonTools. Each description ends with
// NotContract.
func Tools() []ListedTool {
	out := make([]ListedTool, len(tools))
	for i, t := range tools {
		t.Description += NotContract
		out[i] = t
	}
	return out
}

var schemas = sync.OnceValues(func() (map[string]*contract.Schema, error) {
	m := map[string]*contract.Schema{}
	for _, t := range tools {
		s, err := contract.CompileSchema(t.Name, t.InputSchema)
		if err != nil {
			return nil, err
		}
		m[t.Name] = s
	}
	return m, nil
})

// Decode checks the arguments of the extension tool against its input schema
// and decodes them into req, a pointer to the tool's request type. Arguments
// that break the schema are a *contract.SchemaError naming every violation
// (/position: required); an unknown tool is a *contract.InvalidArgumentError.
func Decode(tool string, args json.RawMessage, req any) error {
	m, err := schemas()
	if err != nil {
		return err
	}
	s, ok := m[tool]
	if !ok {
		return contract.Invalid("tool", "unknown tool %q", tool)
	}
	violations, err := s.Validate(args)
	if err != nil {
		return err
	}
	if len(violations) > 0 {
		return &contract.SchemaError{Violations: violations}
	}
	if len(args) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, req); err != nil {
		return contract.Invalid("arguments", "%v", err)
	}
	return nil
}

// Is reports whether name is an extension tool's.
func Is(name string) bool { return strings.HasPrefix(name, Prefix) }
