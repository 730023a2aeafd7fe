package results

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// mustLookup returns the published experiment name; a missing one fails the
// test.
func mustLookup(t *testing.T, name string) *Experiment {
	t.Helper()
	exp, ok := Lookup(name)
	if !ok {
		t.Fatalf("no published %s table", name)
	}
	return exp
}

// objectKeysInOrder returns the keys of the JSON object v marshals to, in order.
func objectKeysInOrder(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s is not an object", b)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestRefsRowJSON(t *testing.T) {
	want := []string{"k", "ref", "correct", "wrong", "not_found", "trials", "passed_version_check", "writes", "refused"}
	if got := objectKeysInOrder(t, RefsRow{}); !slices.Equal(got, want) {
		t.Errorf("RefsRow keys %v, want %v", got, want)
	}
}

func TestRefsRowKeysMatchPublished(t *testing.T) {
	exp := mustLookup(t, "refs")
	for _, k := range []int{2, 5} {
		for _, ref := range RefKinds() {
			row := RefsRow{K: k, Ref: ref}
			p, ok := exp.Match(RowKey(exp, row))
			if !ok || p.Key["k"] != row.KeyOf("k") || p.Key["ref"] != ref {
				t.Errorf("k %d %s: matched published row %v (found %v)", k, ref, p.Key, ok)
			}
		}
	}
	if _, ok := exp.Match(RowKey(exp, RefsRow{K: 3, Ref: RefID})); ok {
		t.Error("k 3 matched a published row; only 2 and 5 were published")
	}
}
