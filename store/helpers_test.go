package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
)

const note = "note-1"

// openTest opens a file store in a test directory with one Note and returns it
// with a connection.
func openTest(t testing.TB, opts Options) (*Store, *Conn) {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = contracttest.NewClock()
	}
	s, err := Open(filepath.Join(t.TempDir(), "notes.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	c, err := s.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		s.Close()
	})
	return s, c
}

// dump renders every row of every table, to compare a database before and after.
func dump(t testing.TB, s *Store) string {
	t.Helper()
	c, err := s.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var b strings.Builder
	err = c.inReadTx(context.Background(), func() error {
		for _, q := range []string{
			"SELECT id, version, next_tab, next_item FROM notes ORDER BY id",
			"SELECT note_id, tab_id, type, label, position, data, version FROM tabs ORDER BY note_id, tab_id",
			"SELECT note_id, kind, seq, id, title, url, created_at FROM attachments ORDER BY note_id, kind, seq",
			"SELECT note_id, key, tool, result FROM idempotency ORDER BY note_id, key",
		} {
			rows, err := c.query(context.Background(), q)
			if err != nil {
				return err
			}
			for rows.Next() {
				vals := make([]any, rows.st.s.ColumnCount())
				ptrs := make([]any, len(vals))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					return err
				}
				fmt.Fprintln(&b, vals...)
			}
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustRead(t testing.TB, c *Conn, tab string) contract.TabContent {
	t.Helper()
	r, err := c.ReadNoteTab(context.Background(), note, tab)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var keySeq atomic.Int64

func key() string {
	return fmt.Sprintf("key-%d", keySeq.Add(1))
}

func replaceText(c *Conn, v contract.Version, text string) (contract.EditResult, error) {
	return c.EditNoteTab(context.Background(), editReq(v, text))
}

// editReq is a replace_text of the Note's text tab at version v, under a key
// of its own.
func editReq(v contract.Version, text string) contract.EditRequest {
	return contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: v,
		IdempotencyKey: key(), Operation: contract.OpReplaceText, Text: text}
}
