package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// EditNoteTab is the edit_note_tab tool: it changes the content of one markdown,
// slides or sheet tab, if the expected version is still current, once per
// idempotency key.
func (c *Conn) EditNoteTab(ctx context.Context, req EditRequest) (EditResult, error) {
	if err := req.validate(); err != nil {
		return EditResult{}, err
	}
	return runWrite(ctx, c, writeSpec[EditResult]{
		tool:     "edit_note_tab",
		noteID:   req.NoteID,
		tabID:    req.TabID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		check:    func(t *target) error { return checkEditable(req.Operation, t) },
		apply: func(t *target, next Version) (EditResult, error) {
			changed, err := c.applyEdit(ctx, req, t)
			return EditResult{NoteID: req.NoteID, TabID: req.TabID, Version: next, Changed: changed}, err
		},
	})
}

// opFields lists, per operation, the optional fields it uses.
var opFields = map[Operation][]string{
	OpReplaceText:      {"text"},
	OpReplaceTabData:   {"data"},
	OpSlideAdd:         {"title", "body", "notes"},
	OpSlidesAddOutline: {"slides"},
	OpSheetSetRange:    {"sheet_id", "start_row", "start_col", "values"},
}

// validate checks what can be checked without the database: required fields,
// the operation, and that no field of another operation is set.
func (r EditRequest) validate() error {
	switch {
	case r.NoteID == "":
		return invalid("note_id", "required")
	case r.TabID == "":
		return invalid("tab_id", "required")
	case r.ExpectedVersion == "":
		return invalid("expected_version", "required")
	case r.IdempotencyKey == "":
		return invalid("idempotency_key", "required")
	}
	uses, ok := opFields[r.Operation]
	if !ok {
		return invalid("operation", "%q is not one of replace_text, replace_tab_data, slide_add, slides_add_outline, sheet_set_range", r.Operation)
	}
	// The optional fields in a fixed order: the first one set that the
	// operation does not use is reported.
	set := [...]struct {
		name string
		set  bool
	}{
		{"text", r.Text != ""}, {"data", len(r.Data) > 0}, {"title", r.Title != ""}, {"body", r.Body != ""},
		{"notes", r.Notes != ""}, {"slides", r.Slides != nil}, {"sheet_id", r.SheetID != ""},
		{"start_row", r.StartRow != 0}, {"start_col", r.StartCol != 0}, {"values", r.Values != nil},
	}
	for _, f := range set {
		if f.set && !slices.Contains(uses, f.name) {
			return invalid(f.name, "not used by %s", r.Operation)
		}
	}
	switch r.Operation {
	case OpReplaceTabData:
		if len(r.Data) == 0 {
			return invalid("data", "required for replace_tab_data")
		}
	case OpSlideAdd:
		if strings.TrimSpace(r.Title) == "" {
			return invalid("title", "required for slide_add")
		}
	case OpSlidesAddOutline:
		return validateOutline("slides", r.Slides)
	case OpSheetSetRange:
		return validateRange(r.StartRow, r.StartCol, r.Values)
	}
	return nil
}

func validateOutline(field string, slides []Slide) error {
	if len(slides) == 0 {
		return invalid(field, "minItems 1")
	}
	if len(slides) > MaxOutlineSlides {
		return invalid(field, "maxItems %d", MaxOutlineSlides)
	}
	for i, s := range slides {
		if strings.TrimSpace(s.Title) == "" {
			return invalid(fmt.Sprintf("%s/%d/title", field, i), "required")
		}
	}
	return nil
}

func validateRange(row, col int, values [][]any) error {
	switch {
	case row < 0:
		return invalid("start_row", "must be 0 or more")
	case col < 0:
		return invalid("start_col", "must be 0 or more")
	case len(values) == 0:
		return invalid("values", "required for sheet_set_range")
	case len(values) > MaxRangeRows:
		return invalid("values", "at most %d rows a call", MaxRangeRows)
	case row > maxSheetRows-len(values): // not row+len: a huge row must not overflow
		return invalid("start_row", "a sheet has at most %d rows", maxSheetRows)
	}
	for i, r := range values {
		if len(r) > MaxRangeCols {
			return invalid(fmt.Sprintf("values/%d", i), "at most %d columns a call", MaxRangeCols)
		}
		if col > maxSheetCols-len(r) {
			return invalid("start_col", "a sheet has at most %d columns", maxSheetCols)
		}
	}
	return validateCells("values", values)
}

// validateCells checks that cells fit in a sheet and hold only scalars.
func validateCells(field string, cells [][]any) error {
	if len(cells) > maxSheetRows {
		return invalid(field, "a sheet has at most %d rows", maxSheetRows)
	}
	for i, r := range cells {
		if len(r) > maxSheetCols {
			return invalid(fmt.Sprintf("%s/%d", field, i), "a sheet has at most %d columns", maxSheetCols)
		}
		for j, v := range r {
			if !isScalar(v) {
				return invalid(fmt.Sprintf("%s/%d/%d", field, i, j), "a cell holds a string, number, boolean or null")
			}
		}
	}
	return nil
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, string, bool, float64, float32, int, int64, int32, json.Number:
		return true
	}
	return false
}

// editableTypes lists, per operation, the tab types it applies to.
var editableTypes = map[Operation][]TabType{
	OpReplaceText:      {TypeMarkdown},
	OpReplaceTabData:   {TypeSlides, TypeSheet},
	OpSlideAdd:         {TypeSlides},
	OpSlidesAddOutline: {TypeSlides},
	OpSheetSetRange:    {TypeSheet},
}

// checkEditable rejects operations that do not fit the tab's type.
func checkEditable(op Operation, t *target) error {
	switch t.tabType {
	case TypeFiles, TypeSources:
		return invalid("tab_id", "%s tabs cannot be edited with edit_note_tab", t.tabType)
	}
	want := editableTypes[op]
	for _, w := range want {
		if w == t.tabType {
			return nil
		}
	}
	return invalid("operation", "%s does not apply to %s tab %q", op, t.tabType, t.tabID)
}

// applyEdit writes the operation's change and says what changed.
func (c *Conn) applyEdit(ctx context.Context, req EditRequest, t *target) (string, error) {
	if req.Operation == OpReplaceText {
		return "text: " + strconv.Itoa(len(req.Text)) + " characters", c.setTabData(ctx, req.NoteID, req.TabID, req.Text)
	}
	var data string
	var changed string
	switch req.Operation {
	case OpReplaceTabData:
		d, err := parseTabData(t.tabType, req.Data)
		if err != nil {
			return "", err
		}
		data, changed = d, "data replaced"
	case OpSlideAdd, OpSlidesAddOutline:
		add := req.Slides
		if req.Operation == OpSlideAdd {
			add = []Slide{{Title: req.Title, Body: req.Body, Notes: req.Notes}}
		}
		var d slidesData
		if err := c.loadJSON(ctx, t, &d); err != nil {
			return "", err
		}
		d.Slides = append(d.Slides, add...)
		data, changed = mustJSON(d), fmt.Sprintf("slides: +%d (%d in all)", len(add), len(d.Slides))
	case OpSheetSetRange:
		var d sheetData
		if err := c.loadJSON(ctx, t, &d); err != nil {
			return "", err
		}
		sh, err := findSheet(d.Sheets, req.SheetID)
		if err != nil {
			return "", err
		}
		setCells(sh, req.StartRow, req.StartCol, req.Values)
		data = mustJSON(d)
		changed = fmt.Sprintf("cells: %d rows from row %d, column %d of %s", len(req.Values), req.StartRow, req.StartCol, sh.SheetID)
	}
	return changed, c.setTabData(ctx, req.NoteID, req.TabID, data)
}

func (c *Conn) loadJSON(ctx context.Context, t *target, v any) error {
	raw, err := c.tabData(ctx, t.noteID, t.tabID)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("decoding tab %q: %w", t.tabID, err)
	}
	return nil
}

// parseTabData checks replace_tab_data content against the tab's type and
// returns it in stored form.
func parseTabData(typ TabType, raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	switch typ {
	case TypeSlides:
		var d slidesData
		if err := dec.Decode(&d); err != nil {
			return "", invalid("data", "want {\"slides\": [{title, body, notes}]}: %v", err)
		}
		if d.Slides == nil {
			return "", invalid("data/slides", "required")
		}
		for i, s := range d.Slides {
			if strings.TrimSpace(s.Title) == "" {
				return "", invalid(fmt.Sprintf("data/slides/%d/title", i), "required")
			}
		}
		return mustJSON(d), nil
	default: // sheet
		var d sheetData
		if err := dec.Decode(&d); err != nil {
			return "", invalid("data", "want {\"sheets\": [{sheet_id, name, cells}]}: %v", err)
		}
		if len(d.Sheets) == 0 {
			return "", invalid("data/sheets", "a sheet tab needs at least one sheet")
		}
		seen := map[string]bool{}
		for i := range d.Sheets {
			sh := &d.Sheets[i]
			if sh.SheetID == "" || seen[sh.SheetID] {
				return "", invalid(fmt.Sprintf("data/sheets/%d/sheet_id", i), "required and unique")
			}
			seen[sh.SheetID] = true
			if sh.Cells == nil {
				sh.Cells = [][]any{}
			}
			if err := validateCells(fmt.Sprintf("data/sheets/%d/cells", i), sh.Cells); err != nil {
				return "", err
			}
		}
		return mustJSON(d), nil
	}
}

func findSheet(sheets []Sheet, id string) (*Sheet, error) {
	if id == "" && len(sheets) > 0 {
		return &sheets[0], nil
	}
	for i := range sheets {
		if sheets[i].SheetID == id {
			return &sheets[i], nil
		}
	}
	return nil, &NotFoundError{Field: "sheet_id", ID: id}
}

// setCells writes values into the sheet at (row, col), growing it as needed.
func setCells(sh *Sheet, row, col int, values [][]any) {
	for len(sh.Cells) < row+len(values) {
		sh.Cells = append(sh.Cells, []any{})
	}
	for i, vals := range values {
		r := sh.Cells[row+i]
		for len(r) < col+len(vals) {
			r = append(r, nil)
		}
		copy(r[col:], vals)
		sh.Cells[row+i] = r
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain data types are marshalled here
	}
	return string(b)
}

func jsonUnmarshal(data string, v any) error {
	if err := json.Unmarshal([]byte(data), v); err != nil {
		return fmt.Errorf("decoding stored tab data: %w", err)
	}
	return nil
}
