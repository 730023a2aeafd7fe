package results

import (
	"bytes"
	"encoding/json"
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
