package pgstore

import (
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// openSchemaT opens the shared schema name on a Target of its own, as a
// process of its own would, closed when the test ends.
func openSchemaT(t *testing.T, name string, v contract.Variant) *Store {
	t.Helper()
	s, err := newTarget(t).OpenSchema(ctx, contract.RunSpec{Name: "serve", Variant: v}, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Two processes that name one schema serve one set of Notes: a write and its
// key stored through one are seen through the other, and the schema
// outlives them both; a schema of other versions, or a name PostgreSQL
// would not take as it is, is refused.
func TestSharedSchema(t *testing.T) {
	a := admin(t)
	const name = "notesbench_shared_test"
	t.Cleanup(func() { a.Exec(ctx, "DROP SCHEMA IF EXISTS "+name+" CASCADE") })
	one, two := openSchemaT(t, name, contract.Variant{}), openSchemaT(t, name, contract.Variant{})
	if err := one.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	c1, c2 := mustConn(t, one), mustConn(t, two)
	w, err := replaceText(c1, "1", "k1", "from one")
	if err != nil {
		t.Fatal(err)
	}
	again, err := replaceText(c2, "1", "k1", "from one")
	if err != nil || !again.Replayed || again.Version != w.Version {
		t.Fatalf("the resend through the other process: %+v %v", again, err)
	}
	if r := mustRead(t, c2, "markdown"); r.Text != "from one" || r.Version != w.Version {
		t.Fatalf("read through the other process: %+v", r)
	}
	c1.Close()
	c2.Close()
	if err := one.Close(); err != nil {
		t.Fatal(err)
	}
	if err := two.Close(); err != nil {
		t.Fatal(err)
	}
	if !schemaExists(t, a, name) {
		t.Fatal("the shared schema was dropped at Close")
	}
	three := openSchemaT(t, name, contract.Variant{})
	if r := mustRead(t, mustConn(t, three), "markdown"); r.Text != "from one" {
		t.Fatalf("opened again: %+v", r)
	}

	_, err = newTarget(t).OpenSchema(ctx, contract.RunSpec{Variant: contract.Variant{VersionFormat: contract.FormatMS}}, name)
	if err == nil || err.Error() != "schema "+name+" holds counter versions (bigint), not the timestamp versions asked for: serve it with the version format it was made with, or name another schema" {
		t.Errorf("ms versions on a counter schema: %v", err)
	}
	for _, bad := range []string{"Notes", "1notes", "pg_notes", "a-b", strings.Repeat("n", 64)} {
		if _, err := newTarget(t).OpenSchema(ctx, contract.RunSpec{}, bad); err == nil || CheckSchema(bad) == nil {
			t.Errorf("schema %q: %v", bad, err)
		}
	}
}
