package results

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
)

// publishedJSON holds every table of the two published write-ups (one in
// English, one in Italian) that notesbench reproduces.
//
//go:embed published.json
var publishedJSON []byte

// published is every published table, grouped by experiment.
//
// Row keys use our vocabulary, so that a row of ours finds its published row:
// guard none | note | tab; policy reapply | refresh; version_format ms |
// us-suffix; order key-first | version-first; create's table a | b and
// key_policy none | retry (table a) or fresh | retry | after-conflict (table b);
// sources' key_policy uuid | raw | normalized; refs' k "2" | "5" and ref
// position | type | label | id; outline's approach outline | slide-add;
// validate's payload the payload column of the published validate table.
//
// Figures follow our JSON row keys. Where a published figure is in words, it
// is stored in our unit: refs' percentages and race's retried_claude as
// fractions, refs' passed_version_check ("all of them") as the fraction 1 of
// the writes made, bench's p99 of 0.42–1.33 ms as p99_us 420–1330 on every
// guard, and create's "0" duplicates as 0 for each seed.
type published struct {
	Experiments []Experiment `json:"experiments"`
}

// An Experiment is the published side of one notesbench subcommand.
//
// Key names the row keys that identify a row, in display order; Figures names
// every figure its rows may carry, in display order. Both use the JSON row keys
// of our rows (results.Row), so a published row lines up with one of ours by key and each
// figure with our field of the same name. Ranging over Key and Figures (never
// over a row's maps) gives a deterministic order.
type Experiment struct {
	Name    string     `json:"name"`
	Title   string     `json:"title"`
	Key     []string   `json:"key"`
	Figures []string   `json:"figures"`
	Tables  []PubTable `json:"tables"`
}

// A PubTable is one published table: where it was published, how it was
// produced, with which parameters, its rows and what the text adds in words.
type PubTable struct {
	Title  string    `json:"title"`
	Source pubSource `json:"source"`
	// Setup is the published setup, e.g. "Python 3.9.6 rebuild, Apple M1, …".
	Setup string `json:"setup"`
	// Params are the published parameters, values as written ("1-5", "30 %").
	// Names follow our flags and config keys where one exists.
	Params []pubParam `json:"params"`
	Rows   []PubRow   `json:"rows"`
	// Facts are the figures the text gives in words beside the table.
	Facts []string `json:"facts"`
}

// A pubSource names the write-up a table comes from.
type pubSource struct {
	// File is the file name of the reference text, e.g.
	// "osfoundry-version-check.en.txt".
	File string `json:"file"`
	// Lang is the language of the text: "en" or "it".
	Lang string `json:"lang"`
}

// A pubParam is one published parameter.
type pubParam struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// A PubRow is one published row. Key holds the values of the experiment's key
// fields as strings (refs' k is "2"); a key field a published row does not
// depend on is absent (race's guard none has no policy). Figures holds only what
// was published: an absent figure was not published for that row.
type PubRow struct {
	Key     map[string]string `json:"key"`
	Figures map[string]Figure `json:"figures"`
}

// Figure returns the published figure called name and whether there is one.
func (r PubRow) Figure(name string) (Figure, bool) {
	f, ok := r.Figures[name]
	return f, ok
}

// Matches reports whether r is the published row for a row of ours whose key
// fields are key: every key field r has must be in key with the same value.
// Fields in key that r lacks are not compared.
func (r PubRow) Matches(key map[string]string) bool {
	for name, want := range r.Key {
		if got, ok := key[name]; !ok || got != want {
			return false
		}
	}
	return true
}

// Match returns the first row of t that Matches key.
func (t *PubTable) Match(key map[string]string) (PubRow, bool) {
	for _, r := range t.Rows {
		if r.Matches(key) {
			return r, true
		}
	}
	return PubRow{}, false
}

// Match returns the first published row of e, in table order, that Matches key.
// For create, whose two tables share orders and key policies, key must hold
// "table" ("a" or "b").
func (e *Experiment) Match(key map[string]string) (PubRow, bool) {
	for i := range e.Tables {
		if r, ok := e.Tables[i].Match(key); ok {
			return r, true
		}
	}
	return PubRow{}, false
}

// Declares reports whether any published row of e has a figure called
// name: a name it does not is no figure of the experiment (a misspelling),
// not one a row left out.
func (e *Experiment) Declares(name string) bool {
	for _, t := range e.Tables {
		for _, r := range t.Rows {
			if _, ok := r.Figures[name]; ok {
				return true
			}
		}
	}
	return false
}

// Label returns the short label of r: its key values in e.Key order, joined by
// a space, e.g. "note reapply" or "a key-first retry".
func (e *Experiment) Label(r PubRow) string {
	var parts []string
	for _, k := range e.Key {
		if v, ok := r.Key[k]; ok {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

// Lookup returns the experiment called name ("race", "create", …).
func (p *published) Lookup(name string) (*Experiment, bool) {
	for i := range p.Experiments {
		if p.Experiments[i].Name == name {
			return &p.Experiments[i], true
		}
	}
	return nil, false
}

var embedded = sync.OnceValue(func() *published {
	p, err := parsePublished(publishedJSON)
	if err != nil {
		panic("results: embedded published.json: " + err.Error())
	}
	return p
})

// Lookup returns the embedded published experiment called name. Callers share it
// and must not modify it.
func Lookup(name string) (*Experiment, bool) { return embedded().Lookup(name) }

// parsePublished reads published figures strictly: unknown fields, trailing data, an
// empty or duplicate experiment name, a row key or figure the experiment does
// not declare, or a row without a key or figures are errors.
func parsePublished(data []byte) (*published, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p published
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("published figures: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("published figures: data after the top-level object")
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("published figures: %w", err)
	}
	return &p, nil
}

// check verifies what the JSON decoder cannot: names and declarations.
func (p *published) check() error {
	if len(p.Experiments) == 0 {
		return errors.New("no experiments")
	}
	var seen []string
	for _, e := range p.Experiments {
		if e.Name == "" {
			return errors.New("an experiment has no name")
		}
		if slices.Contains(seen, e.Name) {
			return fmt.Errorf("experiment %q appears twice", e.Name)
		}
		seen = append(seen, e.Name)
		if len(e.Key) == 0 || len(e.Figures) == 0 || len(e.Tables) == 0 {
			return fmt.Errorf("%s: key, figures and tables must not be empty", e.Name)
		}
		for ti, t := range e.Tables {
			if t.Source.File == "" || t.Setup == "" || len(t.Rows) == 0 {
				return fmt.Errorf("%s: tables[%d]: source, setup and rows must not be empty", e.Name, ti)
			}
			for ri, r := range t.Rows {
				where := fmt.Sprintf("%s: tables[%d].rows[%d]", e.Name, ti, ri)
				if len(r.Key) == 0 || len(r.Figures) == 0 {
					return fmt.Errorf("%s: key and figures must not be empty", where)
				}
				for _, k := range slices.Sorted(maps.Keys(r.Key)) {
					if !slices.Contains(e.Key, k) {
						return fmt.Errorf("%s: key %q is not one of %v", where, k, e.Key)
					}
				}
				for _, name := range slices.Sorted(maps.Keys(r.Figures)) {
					if f := r.Figures[name]; f.IsZero() {
						return fmt.Errorf("%s: figure %q is empty", where, name)
					}
					if !slices.Contains(e.Figures, name) {
						return fmt.Errorf("%s: figure %q is not one of %v", where, name, e.Figures)
					}
				}
			}
		}
	}
	return nil
}
