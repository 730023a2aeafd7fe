package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The rules below are the contract's, whatever stores it: what a request may
// hold, what an operation does to a tab's content, how IDs and timestamp
// versions are made; write.go holds the checks of a write and their order.
// Every implementation calls them, so they cannot drift apart; an
// implementation adds storage and locking.
//
// A tab's content is kept in a stored form: the text of a markdown tab, the
// JSON {"slides": […]} or {"sheets": […]} of the others. Files and sources
// keep their items apart, as attachments.

// opFields lists, per operation, the optional fields it uses.
var opFields = map[Operation][]string{
	OpReplaceText:      {"text"},
	OpReplaceTabData:   {"data"},
	OpSlideAdd:         {"title", "body", "notes"},
	OpSlidesAddOutline: {"slides"},
	OpSheetSetRange:    {"sheet_id", "start_row", "start_col", "values"},
}

// Validate checks what can be checked without the Note: required fields, the
// operation, and that no field of another operation is set.
func (r EditRequest) Validate() error {
	if err := requireWrite(r.NoteID, &r.TabID, r.ExpectedVersion, r.IdempotencyKey); err != nil {
		return err
	}
	uses, ok := opFields[r.Operation]
	if !ok {
		return Invalid("operation", "%q is not one of replace_text, replace_tab_data, slide_add, slides_add_outline, sheet_set_range", r.Operation)
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
			return Invalid(f.name, "not used by %s", r.Operation)
		}
	}
	switch r.Operation {
	case OpReplaceTabData:
		if len(r.Data) == 0 {
			return Invalid("data", "required for replace_tab_data")
		}
	case OpSlideAdd:
		if strings.TrimSpace(r.Title) == "" {
			return Invalid("title", "required for slide_add")
		}
	case OpSlidesAddOutline:
		return validateOutline("slides", r.Slides)
	case OpSheetSetRange:
		return ValidateRange(r.StartRow, r.StartCol, r.Values)
	}
	return nil
}

// Validate checks a create_note_tab request.
func (r CreateRequest) Validate() error {
	if err := requireWrite(r.NoteID, nil, r.ExpectedVersion, r.IdempotencyKey); err != nil {
		return err
	}
	switch {
	case !addable(r.TabType):
		return Invalid("tab_type", "%q is not one of slides, sheet", r.TabType)
	case r.Slides != nil && r.TabType != TypeSlides:
		return Invalid("slides", "only a slides tab takes an outline")
	case r.Slides != nil:
		return validateOutline("slides", r.Slides)
	}
	return nil
}

// LabelOrDefault is the label a created tab gets: the request's, trimmed, or the
// type's default.
func (r CreateRequest) LabelOrDefault() string { return labelOrDefault(r.TabType, r.Label) }

func labelOrDefault(typ TabType, label string) string {
	if label := strings.TrimSpace(label); label != "" {
		return label
	}
	return DefaultLabel(typ)
}

// addable reports whether a tab of type typ may be added to a Note: slides
// and sheets may, the fixed tabs may not.
func addable(typ TabType) bool { return typ == TypeSlides || typ == TypeSheet }

// AddedTabLabel checks the type of a tab the person adds with the "+" button
// and returns the label it gets: label, trimmed, or the type's default.
func AddedTabLabel(typ TabType, label string) (string, error) {
	if !addable(typ) {
		return "", Invalid("tab_type", "%q is not one of slides, sheet", typ)
	}
	return labelOrDefault(typ, label), nil
}

// TabLabel checks a label the person gives a tab and returns it trimmed.
// Labels need not be unique.
func TabLabel(label string) (string, error) {
	if label = strings.TrimSpace(label); label == "" {
		return "", Invalid("label", "required")
	}
	return label, nil
}

// InitialData is the stored content of the tab the request creates.
func (r CreateRequest) InitialData() string {
	if len(r.Slides) > 0 {
		return mustJSON(slidesData{Slides: r.Slides})
	}
	return EmptyData(r.TabType)
}

// Validate checks an add_note_source request.
func (r SourceRequest) Validate() error {
	if err := requireWrite(r.NoteID, nil, r.ExpectedVersion, r.IdempotencyKey); err != nil {
		return err
	}
	if strings.TrimSpace(r.Title) == "" {
		return Invalid("title", "required")
	}
	return checkSourceURL(r.URL)
}

// requireWrite checks, in this order, the fields every tool's write requires:
// the Note, the tab (tabID is nil for a Note-level write), the expected
// version and the idempotency key.
func requireWrite(noteID string, tabID *string, expected Version, key string) error {
	switch {
	case noteID == "":
		return Invalid("note_id", "required")
	case tabID != nil && *tabID == "":
		return Invalid("tab_id", "required")
	case expected == "":
		return Invalid("expected_version", "required")
	case key == "":
		return Invalid("idempotency_key", "required")
	}
	return nil
}

// checkSourceURL accepts only absolute http and https URLs with a host.
func checkSourceURL(raw string) error {
	if raw == "" {
		return Invalid("url", "required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Invalid("url", "not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" {
			return Invalid("url", "%q has no scheme (want http or https)", raw)
		}
		return Invalid("url", "scheme %q not allowed (want http or https)", u.Scheme)
	}
	if u.Host == "" {
		return Invalid("url", "%q has no host", raw)
	}
	return nil
}

// Validate checks the bounds of a read_sheet_range request.
func (r RangeRequest) Validate() error {
	switch {
	case r.StartRow < 0 || r.StartRow >= MaxSheetRows:
		return Invalid("start_row", "must be 0 to %d", MaxSheetRows-1)
	case r.StartCol < 0 || r.StartCol >= MaxSheetCols:
		return Invalid("start_col", "must be 0 to %d", MaxSheetCols-1)
	case r.Rows < 0 || r.Rows > MaxRangeRows:
		return Invalid("rows", "must be 1 to %d", MaxRangeRows)
	case r.Cols < 0 || r.Cols > MaxRangeCols:
		return Invalid("cols", "must be 1 to %d", MaxRangeCols)
	}
	return nil
}

// rangeOf cuts the range r asks for out of tab, a Sheet tab as read_note_tab
// returns it; null where a cell is empty.
func (r RangeRequest) rangeOf(tab TabContent) (SheetRange, error) {
	if tab.Type != TypeSheet {
		return SheetRange{}, Invalid("tab_id", "tab %q is a %s tab, not a sheet", r.TabID, tab.Type)
	}
	sh, err := findSheet(tab.Sheets, r.SheetID)
	if err != nil {
		return SheetRange{}, err
	}
	rows, cols := r.Rows, r.Cols
	if rows == 0 {
		rows = min(MaxRangeRows, max(0, len(sh.Cells)-r.StartRow))
	}
	if cols == 0 {
		width := 0
		for _, row := range sh.Cells {
			width = max(width, len(row))
		}
		cols = min(MaxRangeCols, max(0, width-r.StartCol))
	}
	values := make([][]any, rows)
	for i := range values {
		values[i] = make([]any, cols)
		if row := r.StartRow + i; row < len(sh.Cells) {
			for j := range values[i] {
				if col := r.StartCol + j; col < len(sh.Cells[row]) {
					values[i][j] = sh.Cells[row][col]
				}
			}
		}
	}
	return SheetRange{NoteID: r.NoteID, TabID: r.TabID, SheetID: sh.SheetID, StartRow: r.StartRow,
		StartCol: r.StartCol, Values: values, Version: tab.Version}, nil
}

// Page is a list_note_attachments request with its defaults filled in and its
// cursor read: items after sequence number After, at most Limit of them.
type Page struct {
	Kind  string
	Limit int
	After int64
}

// Page checks the request and returns the page it asks for.
func (r AttachmentsRequest) Page() (Page, error) {
	p := Page{Kind: r.Kind, Limit: r.Limit}
	if p.Kind == "" {
		p.Kind = "sources"
	}
	if p.Kind != "files" && p.Kind != "sources" {
		return p, Invalid("kind", "%q is not one of files, sources", r.Kind)
	}
	if p.Limit == 0 {
		p.Limit = MaxPageLimit
	}
	if p.Limit < 1 || p.Limit > MaxPageLimit {
		return p, Invalid("limit", "must be 1 to %d", MaxPageLimit)
	}
	if r.Cursor != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(r.Cursor, "after-"), 10, 64)
		if err != nil || !strings.HasPrefix(r.Cursor, "after-") || n < 0 {
			return p, Invalid("cursor", "%q is not a cursor from list_note_attachments", r.Cursor)
		}
		p.After = n
	}
	return p, nil
}

// Cut makes the page out of what a store read for it: items, the kind's items
// after p.After in order, with seqs their sequence numbers, at most p.Limit+1
// of them (one more than a page, to tell whether another follows). It returns
// at most p.Limit items, never nil, and the cursor of the next page, "" when
// there is none.
func (p Page) Cut(items []Attachment, seqs []int64) ([]Attachment, string) {
	next := ""
	if len(items) > p.Limit {
		items, next = items[:p.Limit], cursor(seqs[p.Limit-1])
	}
	if items == nil {
		items = []Attachment{}
	}
	return items, next
}

// cursor is the next_cursor of a page whose last item has sequence number seq.
func cursor(seq int64) string { return "after-" + strconv.FormatInt(seq, 10) }

func validateOutline(field string, slides []Slide) error {
	if len(slides) == 0 {
		return Invalid(field, "minItems 1")
	}
	if len(slides) > MaxOutlineSlides {
		return Invalid(field, "maxItems %d", MaxOutlineSlides)
	}
	for i, s := range slides {
		if strings.TrimSpace(s.Title) == "" {
			return Invalid(fmt.Sprintf("%s/%d/title", field, i), "required")
		}
	}
	return nil
}

// ValidateRange checks values written at (row, col) of a sheet: they fit in it
// and hold only scalars, at most 100 × 100 a call.
func ValidateRange(row, col int, values [][]any) error {
	switch {
	case row < 0:
		return Invalid("start_row", "must be 0 or more")
	case col < 0:
		return Invalid("start_col", "must be 0 or more")
	case len(values) == 0:
		return Invalid("values", "required for sheet_set_range")
	case len(values) > MaxRangeRows:
		return Invalid("values", "at most %d rows a call", MaxRangeRows)
	case row > MaxSheetRows-len(values): // not row+len: a huge row must not overflow
		return Invalid("start_row", "a sheet has at most %d rows", MaxSheetRows)
	}
	for i, r := range values {
		if len(r) > MaxRangeCols {
			return Invalid(fmt.Sprintf("values/%d", i), "at most %d columns a call", MaxRangeCols)
		}
		if col > MaxSheetCols-len(r) {
			return Invalid("start_col", "a sheet has at most %d columns", MaxSheetCols)
		}
	}
	return validateCells("values", values)
}

// validateCells checks that cells fit in a sheet and hold only scalars.
func validateCells(field string, cells [][]any) error {
	if len(cells) > MaxSheetRows {
		return Invalid(field, "a sheet has at most %d rows", MaxSheetRows)
	}
	for i, r := range cells {
		if len(r) > MaxSheetCols {
			return Invalid(fmt.Sprintf("%s/%d", field, i), "a sheet has at most %d columns", MaxSheetCols)
		}
		for j, v := range r {
			if !isScalar(v) {
				return Invalid(fmt.Sprintf("%s/%d/%d", field, i, j), "a cell holds a string, number, boolean or null")
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

// CheckEditable rejects an operation that does not fit the type of the tab it
// names; files and sources tabs cannot be edited at all.
func CheckEditable(op Operation, tabType TabType, tabID string) error {
	switch tabType {
	case TypeFiles, TypeSources:
		return Invalid("tab_id", "%s tabs cannot be edited with edit_note_tab", tabType)
	}
	if slices.Contains(editableTypes[op], tabType) {
		return nil
	}
	return Invalid("operation", "%s does not apply to %s tab %q", op, tabType, tabID)
}

// ReadsStored reports whether the edit changes part of the tab's stored
// content, and so needs it: replace_text and replace_tab_data replace it whole.
func (r EditRequest) ReadsStored() bool {
	return r.Operation != OpReplaceText && r.Operation != OpReplaceTabData
}

// ApplyEdit applies an edit to a tab of type typ whose stored content is
// stored, and returns the new stored content and what changed, in a few words.
// The request must be valid (Validate) and fit the tab (CheckEditable). stored
// is read only when the edit changes part of it (ReadsStored).
func ApplyEdit(typ TabType, stored string, req EditRequest) (data, changed string, err error) {
	switch req.Operation {
	case OpReplaceText:
		return req.Text, "text: " + strconv.Itoa(len(req.Text)) + " characters", nil
	case OpReplaceTabData:
		d, err := parseTabData(typ, req.Data)
		return d, "data replaced", err
	case OpSlideAdd, OpSlidesAddOutline:
		add := req.Slides
		if req.Operation == OpSlideAdd {
			add = []Slide{{Title: req.Title, Body: req.Body, Notes: req.Notes}}
		}
		var d slidesData
		if err := decodeStored(req.TabID, stored, &d); err != nil {
			return "", "", err
		}
		d.Slides = append(d.Slides, add...)
		return mustJSON(d), fmt.Sprintf("slides: +%d (%d in all)", len(add), len(d.Slides)), nil
	case OpSheetSetRange:
		var d sheetData
		if err := decodeStored(req.TabID, stored, &d); err != nil {
			return "", "", err
		}
		sh, err := findSheet(d.Sheets, req.SheetID)
		if err != nil {
			return "", "", err
		}
		setCells(sh, req.StartRow, req.StartCol, req.Values)
		return mustJSON(d), fmt.Sprintf("cells: %d rows from row %d, column %d of %s", len(req.Values), req.StartRow, req.StartCol, sh.SheetID), nil
	}
	return "", "", Invalid("operation", "%q is not an operation", req.Operation)
}

// DecodeContent fills out.Text, out.Slides or out.Sheets from the stored content
// of a markdown, slides or sheet tab; out.Type must be set. Files and sources
// tabs hold no stored content: their items are the implementation's to fill.
func DecodeContent(out *TabContent, stored string) error {
	switch out.Type {
	case TypeMarkdown:
		out.Text = stored
	case TypeSlides:
		var d slidesData
		if err := decodeStored(out.TabID, stored, &d); err != nil {
			return err
		}
		out.Slides = d.Slides
	case TypeSheet:
		var d sheetData
		if err := decodeStored(out.TabID, stored, &d); err != nil {
			return err
		}
		out.Sheets = d.Sheets
	}
	return nil
}

func decodeStored(tabID, stored string, v any) error {
	if err := json.Unmarshal([]byte(stored), v); err != nil {
		return fmt.Errorf("decoding stored content of tab %q: %w", tabID, err)
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
			return "", Invalid("data", "want {\"slides\": [{title, body, notes}]}: %v", err)
		}
		if d.Slides == nil {
			return "", Invalid("data/slides", "required")
		}
		for i, s := range d.Slides {
			if strings.TrimSpace(s.Title) == "" {
				return "", Invalid(fmt.Sprintf("data/slides/%d/title", i), "required")
			}
		}
		return mustJSON(d), nil
	default: // sheet
		var d sheetData
		if err := dec.Decode(&d); err != nil {
			return "", Invalid("data", "want {\"sheets\": [{sheet_id, name, cells}]}: %v", err)
		}
		if len(d.Sheets) == 0 {
			return "", Invalid("data/sheets", "a sheet tab needs at least one sheet")
		}
		seen := map[string]bool{}
		for i := range d.Sheets {
			sh := &d.Sheets[i]
			if sh.SheetID == "" || seen[sh.SheetID] {
				return "", Invalid(fmt.Sprintf("data/sheets/%d/sheet_id", i), "required and unique")
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

// MoveTab moves tab tabID of the bar tabs (in bar order) to position pos (0 is
// first; a position past the end means last), shifting the tabs in between,
// and returns the tabs whose position that changes, each with its new
// Position: what a store writes.
func MoveTab(tabs []TabInfo, tabID string, pos int) ([]TabInfo, error) {
	if pos < 0 {
		return nil, Invalid("position", "must be 0 or more")
	}
	from := slices.IndexFunc(tabs, func(t TabInfo) bool { return t.TabID == tabID })
	if from < 0 {
		return nil, &NotFoundError{Field: "tab_id", ID: tabID}
	}
	bar := slices.Clone(tabs)
	moved := bar[from]
	bar = slices.Delete(bar, from, from+1)
	bar = slices.Insert(bar, min(pos, len(bar)), moved)
	var changed []TabInfo
	for i, t := range bar {
		if t.TabID != tabs[i].TabID || tabs[i].Position != i {
			t.Position = i
			changed = append(changed, t)
		}
	}
	return changed, nil
}

// FixedTabs are the tabs every Note has, in bar order.
var FixedTabs = []TabType{TypeMarkdown, TypeFiles, TypeSources}

// DefaultLabel is the label of a tab of type t when none is given.
func DefaultLabel(t TabType) string {
	switch t {
	case TypeMarkdown:
		return "Note"
	case TypeFiles:
		return "Files"
	case TypeSources:
		return "Sources"
	case TypeSlides:
		return "Slides"
	case TypeSheet:
		return "Sheet"
	}
	return string(t)
}

// EmptyData is the stored content of a new tab: text for markdown, JSON for the
// others. Files and sources keep their items apart.
func EmptyData(t TabType) string {
	switch t {
	case TypeSlides:
		return `{"slides":[]}`
	case TypeSheet:
		return `{"sheets":[{"sheet_id":"sheet-1","name":"Sheet 1","cells":[]}]}`
	}
	return ""
}

// TabID is the ID of the n-th tab a Note adds, created at now:
// <type>-<n>-<base36 of the creation time in ms>, as the app's nextTabId makes
// them. n is a per-Note counter that is never reused.
func TabID(typ TabType, n int64, now time.Time) string {
	return fmt.Sprintf("%s-%d-%s", typ, n, strconv.FormatInt(now.UnixMilli(), 36))
}

// AttachmentID is the ID of the n-th attachment of a kind ("files", "sources")
// a Note holds: "source-7".
func AttachmentID(kind string, n int64) string {
	return fmt.Sprintf("%s-%d", strings.TrimSuffix(kind, "s"), n)
}

// The layouts of timestamp versions and creation times, in UTC.
const (
	msLayout = "2006-01-02T15:04:05.000Z"
	usLayout = "2006-01-02T15:04:05.000000Z"
)

// CreatedAt is the created_at of an attachment added at now.
func CreatedAt(now time.Time) string {
	return now.UTC().Truncate(time.Millisecond).Format(msLayout)
}

// Stamp is the timestamp version of a commit at now: the time cut to
// milliseconds (FormatMS), or to microseconds followed by the low 24 bits of
// suffix in hex (FormatUSSuffix).
func Stamp(format VersionFormat, now time.Time, suffix uint32) string {
	now = now.UTC()
	if format == FormatMS {
		return now.Truncate(time.Millisecond).Format(msLayout)
	}
	return fmt.Sprintf("%s-%06x", now.Truncate(time.Microsecond).Format(usLayout), suffix&0xffffff)
}

// Versions makes the versions of one run's commits, in the run's format: a
// counter, or the time of the commit (FormatMS, FormatUSSuffix). Versions are
// kept as a store keeps them in its version column: an int64 for counter
// versions, the string otherwise.
//
// The suffixes of us-suffix versions come from a PCG seeded with the run's
// seed, one drawn per version made, so that the same calls at the same times
// give the same versions on every implementation. A Versions is safe for
// concurrent use.
type Versions struct {
	format VersionFormat
	mu     sync.Mutex
	rand   *rand.Rand
}

// NewVersions returns the versions of a run in format ("" is FormatCounter),
// their suffixes seeded by seed.
func NewVersions(format VersionFormat, seed uint64) *Versions {
	if format == "" {
		format = FormatCounter
	}
	return &Versions{format: format, rand: rand.New(rand.NewPCG(seed, 0x6e6f746573))}
}

// First is the version of a new Note or tab made at now.
func (vs *Versions) First(now time.Time) any {
	if vs.format == FormatCounter {
		return int64(1)
	}
	return vs.stamp(now)
}

// Next is the version a write made at now commits, given the current one: the
// counter plus one, or the stamp of now, whatever the current one was.
func (vs *Versions) Next(cur any, now time.Time) any {
	if vs.format == FormatCounter {
		n, _ := cur.(int64)
		return n + 1
	}
	return vs.stamp(now)
}

// stamp is Stamp with the next suffix of the run's stream; only us-suffix
// versions draw one.
func (vs *Versions) stamp(now time.Time) string {
	var suffix uint32
	if vs.format == FormatUSSuffix {
		vs.mu.Lock()
		suffix = vs.rand.Uint32()
		vs.mu.Unlock()
	}
	return Stamp(vs.format, now, suffix)
}

// Expected turns an expected version into the value kept in the version
// column, to compare with the stored one. An empty version, or under counter
// versions one that is not an integer in its one canonical form (digits, no
// sign, no space, no leading zero), is an invalid argument naming
// expected_version.
func (vs *Versions) Expected(v Version) (any, error) {
	if v == "" {
		return nil, Invalid("expected_version", "required")
	}
	if vs.format != FormatCounter {
		return string(v), nil
	}
	// A counter version has one spelling, the one the Note reported: "01",
	// " 1" and "+1" are not versions, not version 1.
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || !isDigits(string(v)) || (len(v) > 1 && v[0] == '0') {
		return nil, Invalid("expected_version", "%q is not a version of this Note (want an integer as the Note reported it: no sign, space or leading zero)", v)
	}
	return n, nil
}

// VersionOf turns a value a store keeps in its version column (int64, string
// or bytes) back into a Version.
func VersionOf(stored any) Version {
	switch v := stored.(type) {
	case int64:
		return Version(strconv.FormatInt(v, 10))
	case string:
		return Version(v)
	case []byte:
		return Version(v)
	}
	return Version(fmt.Sprint(stored))
}

// ReadRange is read_sheet_range in terms of read_note_tab, for an
// implementation that keeps a sheet whole: it checks the request, reads the tab
// through s and cuts the range out of it.
func ReadRange(ctx context.Context, s Session, req RangeRequest) (SheetRange, error) {
	if err := req.Validate(); err != nil {
		return SheetRange{}, err
	}
	tab, err := s.ReadNoteTab(ctx, req.NoteID, req.TabID)
	if err != nil {
		return SheetRange{}, err
	}
	return req.rangeOf(tab)
}
