package backend

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/pgstore"
)

func fieldError(t *testing.T, err error, name string) string {
	t.Helper()
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != name {
		t.Fatalf("err %v, want a field error on %s", err, name)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("message %q is more than one line", err)
	}
	return err.Error()
}

func TestCheckStore(t *testing.T) {
	for _, tc := range []struct {
		spec  Spec
		field string
		want  string
	}{
		{Spec{Store: "mysql://u:secret@h/db"}, "store", `store: "mysql://u@h/db" is not sqlite or a postgres:// URL`},
		{Spec{Store: "SQLite"}, "store", `store: "SQLite" is not sqlite or a postgres:// URL`},
		{Spec{Store: "postgres://u:secret@h/db", InMemory: true}, "memory", "memory: applies to the SQLite store, not to postgres://u@h/db"},
		{Spec{Store: "postgres://u:secret@h/db", DBDir: "x"}, "db", "db: applies to the SQLite store, not to postgres://u@h/db"},
		{Spec{Store: "postgres://u:secret@h/db", File: "x.db"}, "db", "db: applies to the SQLite store, not to postgres://u@h/db"},
		{Spec{Store: "postgres://u:secret@h/db", Target: "http://127.0.0.1:1/mcp"}, "store", "store: postgres://u@h/db and a server target exclude each other"},
		{Spec{Store: "postgresql://u:secret@h:port/db"}, "store", "store: postgresql://u@h:port/db: parsing the URL: invalid port"},
		{Spec{Store: "postgres://u:secret@h/db", Synchronous: "extra"}, "synchronous", `synchronous: unknown synchronous setting "extra" (want normal or full)`},
		{Spec{Keep: true}, "keep", "keep: applies to a PostgreSQL store or a server target only"},
	} {
		msg := fieldError(t, tc.spec.Check(), tc.field)
		if !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, "secret") {
			t.Errorf("%+v: %q, want %q", tc.spec, msg, tc.want)
		}
	}
	for _, s := range []Spec{{}, {Store: "sqlite"}, {Store: "postgres://u:secret@h/db", Keep: true, Synchronous: "full"}, {Target: "stdio:srv", Keep: true}} {
		if err := s.Check(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// Open reports a server it cannot use in one line naming the URL without its
// password: not a field error (the spec is well formed), a failure.
func TestOpenRefusesAServerItCannotUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Open(context.Background(), Spec{Store: "postgres://u:secret-pw@" + addr + "/db"})
	var pe *pgstore.Error
	var fe *field.Error
	if !errors.As(err, &pe) || errors.As(err, &fe) {
		t.Fatalf("unreachable: %T %v, want a *pgstore.Error", err, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "postgres://u@"+addr+"/db: connecting: ") ||
		!strings.Contains(msg, "connection refused") || strings.Contains(msg, "secret-pw") || strings.Contains(msg, "\n") {
		t.Fatalf("unreachable: %q", msg)
	}

	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Skipf("the test server's URL is not a URL: %v", err)
	}
	u.User = url.UserPassword(u.User.Username(), "wrong-pw-123")
	_, err = Open(context.Background(), Spec{Store: u.String()})
	if msg := err.Error(); !errors.As(err, &pe) || !strings.Contains(msg, "password authentication failed") || strings.Contains(msg, "wrong-pw-123") {
		t.Fatalf("wrong password: %q", msg)
	}
}

func TestOpenGivesAPostgresTarget(t *testing.T) {
	tg, err := Open(context.Background(), Spec{Store: pgtest.URL(t), Keep: true, Synchronous: "full"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	pt, ok := tg.(*pgstore.Target)
	if !ok || !pt.Keep || pt.Synchronous != contract.SyncFull {
		t.Fatalf("target %#v", tg)
	}
	if d := tg.Describe(); !strings.HasPrefix(d, "PostgreSQL 1") || !strings.Contains(d, "synchronous_commit on") {
		t.Fatalf("Describe %q", d)
	}
}

// A served PostgreSQL Backend is a schema of its own, dropped when it closes.
func TestOpenBackendOnPostgres(t *testing.T) {
	ctx := context.Background()
	b, err := OpenBackend(Spec{Store: pgtest.URL(t)}, contract.Variant{Guard: contract.GuardTab}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := b.(*pgstore.Store)
	if !ok || st.Variant().Guard != contract.GuardTab || !strings.HasPrefix(st.Schema(), "notesbench_serve_") {
		t.Fatalf("backend %#v", b)
	}
	if err := b.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, st.Schema()).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left {
		t.Fatalf("schema %s left after Close", st.Schema())
	}
}
