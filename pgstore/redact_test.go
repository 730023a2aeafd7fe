package pgstore

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:secret@h:5432/db", "postgres://u@h:5432/db"},
		{"postgresql://u@h/db?password=secret&sslmode=disable", "postgresql://u@h/db?sslmode=disable"},
		{"postgres://h/db", "postgres://h/db"},
		{"mysql://u:secret@h/db", "mysql://u@h/db"},
		{"postgres://u:secret@h:notaport/db", "postgres://u@h:notaport/db"},
		{"postgres://u:sec ret@h/db", "postgres://u@h/db"},
		{"host=h user=u password=secret dbname=db", "host=h user=u dbname=db"},
	} {
		if got := Redact(tc.in); got != tc.want || strings.Contains(got, "secret") {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
