package report

import (
	"encoding/csv"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

// CSVHeader is the one header of notesbench's CSV: tidy data, one record per
// figure of a row (and per seed of a per-seed figure), numbers written plainly
// ("279", "0.857", never "279 of 1,000 (28 %)"), so that encoding/csv, pandas
// or duckdb read it as it is:
//
//   - table: what the record belongs to: the experiment ("race", "create",
//     …), or bench_repetitions, bench_differences, violations;
//   - row: the row's key values, space-separated, in the order the
//     experiment lists them ("note reapply", "b key-first fresh", "none 1"
//     for bench's guard and writers);
//   - figure: the figure's JSON row key ("lost", "conflicts_claude");
//   - seed: for a per-seed figure, the 1-based position of the seed in the
//     run's seed list (the published seeds are numbered the same way); empty
//     otherwise;
//   - ours: our value; a text for a figure in words;
//   - published: the published value when it is one number or a text; empty
//     for a range or when none was published;
//   - published_low, published_high: the published range, or the published
//     number twice; empty when none was published;
//   - verdict: consistent, differs, ratio or no data for a judged figure;
//     empty when it was not judged.
//
// An empty field is a value that does not exist (pandas reads NaN).
var CSVHeader = []string{"table", "row", "figure", "seed", "ours", "published", "published_low", "published_high", "verdict"}

// A Record is one line of CSV: one figure of one row.
type Record struct {
	Table, Row, Figure string
	// Seed is the 1-based position of the seed of a per-seed figure, or 0.
	Seed int
	// Ours is our value as written: a plain number, or a text.
	Ours string
	// Published is the published figure, zero when none was published.
	Published results.Figure
	// Verdict is the outcome of the figure's verdict, "" when not judged.
	Verdict string
}

// WriteCSV writes CSVHeader, then every record.
func WriteCSV(w io.Writer, records []Record) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range records {
		if err := cw.Write(r.fields()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// fields returns the record's fields in CSVHeader order.
func (r Record) fields() []string {
	seed := ""
	if r.Seed > 0 {
		seed = strconv.Itoa(r.Seed)
	}
	pub, low, high := "", "", ""
	switch r.Published.Kind() {
	case results.FigurePoint:
		pub = Plain(r.Published.Value())
		low, high = pub, pub
	case results.FigureRange:
		l, h := r.Published.Range()
		low, high = Plain(l), Plain(h)
	case results.FigureText:
		pub = r.Published.Text()
	}
	return []string{r.Table, r.Row, r.Figure, seed, r.Ours, pub, low, high, r.Verdict}
}

// Plain writes a number as it is, without grouping or exponent; NaN and
// infinities are empty.
func Plain(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// rowRecords returns the records of an experiment's rows: every figure of
// the row's JSON form, in its order, with the published value and the
// verdict when cmp shows them. published, when set, says which rows a
// published row may stand beside.
func rowRecords(experiment string, rows []results.Row, cmp results.Comparison, published func(results.Row) bool) []Record {
	exp := cmp.Experiment
	var keys []string
	if exp != nil {
		keys = slices.Clone(exp.Key)
	}
	var out []Record
	for _, row := range rows {
		keyNames, _ := row.Names()
		for _, k := range keyNames {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		var label []string
		for _, k := range keys {
			if kv := row.KeyOf(k); kv != "" {
				label = append(label, kv)
			}
		}
		var pub results.PubRow
		var pubOK bool
		verdictRow := ""
		if exp != nil && cmp.Shown() && (published == nil || published(row)) {
			if pub, pubOK = exp.Match(results.RowKey(exp, row)); pubOK {
				verdictRow = exp.Label(pub)
			}
		}
		for _, f := range jsonFields(reflect.ValueOf(row)) {
			if slices.Contains(keys, f.name) {
				continue
			}
			var published results.Figure
			if pubOK {
				published, _ = pub.Figure(f.name)
			}
			rec := Record{Table: experiment, Row: strings.Join(label, " "), Figure: f.name}
			if f.nums == nil {
				rec.Ours = f.text
				rec.Published, rec.Verdict = published, verdictOf(cmp.Verdicts, verdictRow, f.name, 0)
				out = append(out, rec)
				continue
			}
			if published.Kind() != results.FigureSeeds && !f.perSeed {
				rec.Ours, rec.Published = Plain(f.nums[0]), published
				rec.Verdict = verdictOf(cmp.Verdicts, verdictRow, f.name, 0)
				out = append(out, rec)
				continue
			}
			seeds := published.Seeds()
			for s, x := range f.nums {
				r := rec
				r.Seed, r.Ours = s+1, Plain(x)
				if s < len(seeds) {
					r.Published = results.PointFigure(seeds[s])
					r.Verdict = verdictOf(cmp.Verdicts, verdictRow, f.name, s+1)
				}
				out = append(out, r)
			}
		}
	}
	return out
}

// jsonField is one field of a row's JSON form: a number, per-seed numbers or
// a text.
type jsonField struct {
	name    string
	nums    []float64
	perSeed bool
	text    string
}

// jsonFields returns the fields of a row struct in its JSON form, in order:
// numbers, lists of numbers (one per seed) and texts; a nil pointer (a
// figure the row does not carry) and fields the JSON leaves out (tagged "-",
// or omitempty and empty) are left out.
func jsonFields(v reflect.Value) []jsonField {
	var out []jsonField
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		fv := v.Field(i)
		if strings.Contains(","+opts+",", ",omitempty,") && fv.IsZero() {
			continue // absent from the JSON as well
		}
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		f := jsonField{name: name}
		switch fv.Kind() {
		case reflect.Int, reflect.Int64:
			f.nums = []float64{float64(fv.Int())}
		case reflect.Float64:
			f.nums = []float64{fv.Float()}
		case reflect.String:
			f.text = fv.String()
		case reflect.Slice:
			f.perSeed, f.nums = true, []float64{}
			for j := range fv.Len() {
				switch e := fv.Index(j); e.Kind() {
				case reflect.Int, reflect.Int64:
					f.nums = append(f.nums, float64(e.Int()))
				case reflect.Float64:
					f.nums = append(f.nums, e.Float())
				}
			}
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// verdictOf returns the outcome of the verdict on figure of the row labelled
// row (and seed, for a per-seed figure), or "".
func verdictOf(verdicts []results.Verdict, row, figure string, seed int) string {
	if row == "" {
		return ""
	}
	for _, v := range verdicts {
		if v.Row == row && v.Figure == figure && v.Seed == seed {
			return string(v.Outcome)
		}
	}
	return ""
}

// PayloadRecords returns the records of one payload's check: a record per
// violation, table "violations", the path as the row, the keyword as the
// figure and the message, a sentence, as ours.
func PayloadRecords(violations []contract.Violation) []Record {
	out := make([]Record, 0, len(violations))
	for _, v := range violations {
		out = append(out, Record{Table: "violations", Row: v.Path, Figure: v.Keyword, Ours: v.Message})
	}
	return out
}

// tableRecords returns the records of a table of formatted cells, for tables
// no experiment's rows stand behind: the title as the table, the key columns
// as the row, each other column's header as the figure and its cell as ours.
func tableRecords(t Table) []Record {
	keys := t.keyColumns()
	var out []Record
	for _, r := range t.Rows {
		row := strings.Join(r[:keys], " ")
		for c := keys; c < len(t.Header); c++ {
			out = append(out, Record{Table: t.Title, Row: row, Figure: t.Header[c], Ours: r[c]})
		}
	}
	return out
}
