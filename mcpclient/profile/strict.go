package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// duplicateKey returns the first member of data, a JSON value, whose key
// its object gives twice, as an *Error naming it; nil when there is none.
// encoding/json keeps the last of two, so a profile could say one thing
// and mean another.
func duplicateKey(data []byte) *Error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(field string) *Error
	walk = func(field string) *Error {
		tok, err := dec.Token()
		if err != nil {
			return &Error{Field: field, Err: err}
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch d {
		case '{':
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return &Error{Field: field, Err: err}
				}
				key := kt.(string)
				f := key
				if field != "" {
					f = field + "." + key
				}
				if seen[key] {
					return &Error{Field: f, Err: fmt.Errorf("%s is given twice in one object", strconv.Quote(key))}
				}
				seen[key] = true
				if e := walk(f); e != nil {
					return e
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if e := walk(fmt.Sprintf("%s[%d]", field, i)); e != nil {
					return e
				}
			}
		}
		if _, err := dec.Token(); err != nil {
			return &Error{Field: field, Err: err}
		}
		return nil
	}
	return walk("")
}
