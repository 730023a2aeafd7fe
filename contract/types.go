package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Version identifies a state of a Note or tab. It is opaque to callers: compare it
// for equality and send it back as expected_version. A counter version is the
// decimal integer ("7") and travels as a JSON number; timestamp versions are
// strings.
type Version string

// MarshalJSON writes a counter version as a number and any other as a string.
// A counter is what a JSON integer can spell: digits without a leading zero
// ("0", "7", "1733000000000000123"); "007" is a string, sent back as it came.
func (v Version) MarshalJSON() ([]byte, error) {
	if IsCounter(string(v)) {
		return []byte(v), nil
	}
	return json.Marshal(string(v))
}

// IsCounter reports whether s is a counter version as JSON spells one: digits
// with no leading zero.
func IsCounter(s string) bool {
	return isDigits(s) && (s == "0" || s[0] != '0')
}

// UnmarshalJSON accepts a JSON integer or string.
func (v *Version) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = Version(s)
		return nil
	}
	if !isDigits(string(b)) {
		return fmt.Errorf("version must be an integer or a string, not %s", b)
	}
	*v = Version(b)
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// TabType is the kind of a tab.
type TabType string

// The tab types. Markdown, files and sources are the fixed tabs every Note has;
// slides and sheet tabs are added.
const (
	TypeMarkdown TabType = "markdown"
	TypeFiles    TabType = "files"
	TypeSources  TabType = "sources"
	TypeSlides   TabType = "slides"
	TypeSheet    TabType = "sheet"
)

// Operation is an edit_note_tab operation.
type Operation string

// The edit_note_tab operations.
const (
	OpReplaceText      Operation = "replace_text"
	OpReplaceTabData   Operation = "replace_tab_data"
	OpSlideAdd         Operation = "slide_add"
	OpSlidesAddOutline Operation = "slides_add_outline"
	OpSheetSetRange    Operation = "sheet_set_range"
)

// Slide is one slide of a Slides tab: exactly a title, a body and speaker notes.
type Slide struct {
	Title string `json:"title"`
	Body  string `json:"body,omitempty"`
	Notes string `json:"notes,omitempty"`
}

// Sheet is one sheet of a Sheet tab. Cells holds rows of JSON scalar values
// (string, number, boolean or null); rows may be ragged.
type Sheet struct {
	SheetID string  `json:"sheet_id"`
	Name    string  `json:"name"`
	Cells   [][]any `json:"cells"`
}

// Attachment is the metadata of one file or source. Content and signed links are
// never returned.
type Attachment struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	URL       string `json:"url,omitempty"`
	CreatedAt string `json:"created_at"`
}

// TabInfo is one tab instance in the tab bar.
type TabInfo struct {
	TabID    string  `json:"tab_id"`
	Type     TabType `json:"type"`
	Label    string  `json:"label"`
	Position int     `json:"position"`
}

// TabList is the result of list_note_tabs: the Note version and every tab in bar
// order.
type TabList struct {
	NoteID  string    `json:"note_id"`
	Version Version   `json:"version"`
	Tabs    []TabInfo `json:"tabs"`
}

// TabContent is the result of read_note_tab. Exactly one of Text, Slides, Sheets
// and Items is meaningful, by Type. Version is the Note's, or the tab's under
// GuardTab.
type TabContent struct {
	NoteID  string
	TabID   string
	Type    TabType
	Label   string
	Version Version
	Text    string
	Slides  []Slide
	Sheets  []Sheet
	Items   []Attachment
}

// MarshalJSON writes the tool result: data is the text of a markdown tab, or an
// object holding slides, sheets or attachment items.
func (t TabContent) MarshalJSON() ([]byte, error) {
	var data any
	switch t.Type {
	case TypeMarkdown:
		data = t.Text
	case TypeSlides:
		data = slidesData{Slides: nonNil(t.Slides)}
	case TypeSheet:
		data = sheetData{Sheets: nonNil(t.Sheets)}
	default:
		data = struct {
			Items []Attachment `json:"items"`
		}{nonNil(t.Items)}
	}
	return json.Marshal(struct {
		NoteID  string  `json:"note_id"`
		TabID   string  `json:"tab_id"`
		Type    TabType `json:"type"`
		Label   string  `json:"label"`
		Data    any     `json:"data"`
		Version Version `json:"version"`
	}{t.NoteID, t.TabID, t.Type, t.Label, data, t.Version})
}

// UnmarshalJSON reads the tool result MarshalJSON writes: data is read by the
// tab's type.
func (t *TabContent) UnmarshalJSON(b []byte) error {
	var r struct {
		NoteID  string          `json:"note_id"`
		TabID   string          `json:"tab_id"`
		Type    TabType         `json:"type"`
		Label   string          `json:"label"`
		Data    json.RawMessage `json:"data"`
		Version Version         `json:"version"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	*t = TabContent{NoteID: r.NoteID, TabID: r.TabID, Type: r.Type, Label: r.Label, Version: r.Version}
	if len(r.Data) == 0 {
		return fmt.Errorf("tab %s: no data", r.TabID)
	}
	var err error
	switch r.Type {
	case TypeMarkdown:
		err = json.Unmarshal(r.Data, &t.Text)
	case TypeSlides:
		var d slidesData
		err = json.Unmarshal(r.Data, &d)
		t.Slides = d.Slides
	case TypeSheet:
		var d sheetData
		err = json.Unmarshal(r.Data, &d)
		t.Sheets = d.Sheets
	default:
		var d struct {
			Items []Attachment `json:"items"`
		}
		err = json.Unmarshal(r.Data, &d)
		t.Items = d.Items
	}
	if err != nil {
		return fmt.Errorf("data of tab %s: %w", r.TabID, err)
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// slidesData and sheetData are the stored and replace_tab_data forms of the
// Slides and Sheet tabs' content.
type slidesData struct {
	Slides []Slide `json:"slides"`
}

type sheetData struct {
	Sheets []Sheet `json:"sheets"`
}

// EditRequest is the arguments of edit_note_tab. Which of the operation fields
// may be set depends on Operation; a field the operation does not use is an
// invalid argument.
type EditRequest struct {
	NoteID          string    `json:"note_id"`
	TabID           string    `json:"tab_id"`
	ExpectedVersion Version   `json:"expected_version"`
	IdempotencyKey  string    `json:"idempotency_key"`
	Operation       Operation `json:"operation"`

	Text     string          `json:"text,omitempty"`     // replace_text
	Data     json.RawMessage `json:"data,omitempty"`     // replace_tab_data
	Title    string          `json:"title,omitempty"`    // slide_add
	Body     string          `json:"body,omitempty"`     // slide_add
	Notes    string          `json:"notes,omitempty"`    // slide_add
	Slides   []Slide         `json:"slides,omitempty"`   // slides_add_outline
	SheetID  string          `json:"sheet_id,omitempty"` // sheet_set_range
	StartRow int             `json:"start_row,omitempty"`
	StartCol int             `json:"start_col,omitempty"`
	Values   [][]any         `json:"values,omitempty"`
}

// EditResult is the result of edit_note_tab.
type EditResult struct {
	NoteID  string  `json:"note_id"`
	TabID   string  `json:"tab_id"`
	Version Version `json:"version"`
	// Changed says in a few words what the write changed.
	Changed  string `json:"changed"`
	Replayed bool   `json:"replayed,omitempty"`
}

// CreateRequest is the arguments of create_note_tab.
type CreateRequest struct {
	NoteID          string  `json:"note_id"`
	ExpectedVersion Version `json:"expected_version"`
	IdempotencyKey  string  `json:"idempotency_key"`
	TabType         TabType `json:"tab_type"`
	Label           string  `json:"label,omitempty"`
	Slides          []Slide `json:"slides,omitempty"`
}

// CreateResult is the result of create_note_tab: the exact ID of the new tab.
type CreateResult struct {
	NoteID   string  `json:"note_id"`
	TabID    string  `json:"tab_id"`
	Type     TabType `json:"type"`
	Label    string  `json:"label"`
	Position int     `json:"position"`
	Version  Version `json:"version"`
	Replayed bool    `json:"replayed,omitempty"`
}

// SourceRequest is the arguments of add_note_source.
type SourceRequest struct {
	NoteID          string  `json:"note_id"`
	ExpectedVersion Version `json:"expected_version"`
	IdempotencyKey  string  `json:"idempotency_key"`
	Title           string  `json:"title"`
	URL             string  `json:"url"`
}

// SourceResult is the result of add_note_source.
type SourceResult struct {
	NoteID   string  `json:"note_id"`
	SourceID string  `json:"source_id"`
	Version  Version `json:"version"`
	Replayed bool    `json:"replayed,omitempty"`
}

// RangeRequest is the arguments of read_sheet_range. Rows and Cols of zero mean
// the used part of the sheet from the start cell, at most 100 each.
type RangeRequest struct {
	NoteID   string `json:"note_id"`
	TabID    string `json:"tab_id"`
	SheetID  string `json:"sheet_id,omitempty"`
	StartRow int    `json:"start_row,omitempty"`
	StartCol int    `json:"start_col,omitempty"`
	Rows     int    `json:"rows,omitempty"`
	Cols     int    `json:"cols,omitempty"`
}

// SheetRange is the result of read_sheet_range: a rectangle of cell values, with
// null for empty cells.
type SheetRange struct {
	NoteID   string  `json:"note_id"`
	TabID    string  `json:"tab_id"`
	SheetID  string  `json:"sheet_id"`
	StartRow int     `json:"start_row"`
	StartCol int     `json:"start_col"`
	Values   [][]any `json:"values"`
	Version  Version `json:"version"`
}

// AttachmentsRequest is the arguments of list_note_attachments. Kind "" means
// sources; Limit 0 means 50.
type AttachmentsRequest struct {
	NoteID string `json:"note_id"`
	Kind   string `json:"kind,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// AttachmentPage is one page of list_note_attachments. NextCursor is empty on the
// last page.
type AttachmentPage struct {
	NoteID     string       `json:"note_id"`
	Kind       string       `json:"kind"`
	Items      []Attachment `json:"items"`
	NextCursor string       `json:"next_cursor,omitempty"`
}

// Limits of the published schema.
const (
	MaxOutlineSlides = 20    // slides in one create_note_tab or slides_add_outline
	MaxRangeRows     = 100   // rows in one read_sheet_range or sheet_set_range
	MaxRangeCols     = 100   // columns in one read_sheet_range or sheet_set_range
	MaxPageLimit     = 50    // list_note_attachments limit
	MaxSheetRows     = 10000 // rows a sheet holds
	MaxSheetCols     = 1000  // columns a sheet holds
)
