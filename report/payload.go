package report

import (
	"fmt"

	"github.com/notesbench/notesbench/contract"
)

// PayloadTable renders the check of one payload of the user's, read from
// file, against tool's schema: a row per violation (path, keyword, message),
// or the note "valid".
func PayloadTable(file, tool string, valid bool, violations []contract.Violation) Table {
	t := Table{Title: fmt.Sprintf("%s against the %s schema", file, tool), Header: []string{"Path", "Keyword", "Message"}}
	for _, v := range violations {
		t.Rows = append(t.Rows, []string{v.Path, v.Keyword, v.Message})
	}
	if valid {
		t.Notes = []string{"valid"}
	} else {
		t.Notes = []string{Count(len(violations), "violation")}
	}
	return t
}
