// Package jsonerr says what is wrong with JSON a user gave that did not
// decode, in the user's words rather than Go's: the field and what it holds,
// not the Go type that could not take it; an empty or cut-short file as
// such.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Describe says what is wrong with a JSON value that did not decode with
// err: "experiment: a JSON number where a string is wanted".
func Describe(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if i := strings.LastIndex(field, "."); i >= 0 {
			field = field[i+1:]
		}
		if field == "" {
			return fmt.Sprintf("a JSON %s where an object is wanted", te.Value)
		}
		return fmt.Sprintf("%s: a JSON %s where a %s is wanted", field, te.Value, kind(te.Type.Kind()))
	}
	return err.Error()
}

// DescribeFile says what is wrong with data, a whole file that did not
// decode with err: empty, cut short, not JSON, or a value of the wrong kind
// (Describe).
func DescribeFile(data []byte, err error) string {
	var syn *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return "the file is empty"
	case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))):
		return "the JSON ends early: the file is cut short"
	case errors.As(err, &syn):
		return "not JSON (" + syn.Error() + ")"
	}
	return Describe(err)
}

// kind names the JSON a Go kind reads.
func kind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "number"
}
