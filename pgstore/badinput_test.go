package pgstore

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/pgtest"
)

// checkFailure asserts that err is one line starting with want (a URL without
// its password, what was being done) and holding cause, and that it never
// shows password.
func checkFailure(t *testing.T, err error, want, cause, password string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("%T %v, want *Error", err, err)
	}
	if !strings.HasPrefix(msg, want) || !strings.Contains(msg, cause) || strings.Contains(msg, "\n") {
		t.Fatalf("message %q, want one line starting with %s and holding %q", msg, want, cause)
	}
	t.Log(msg)
	if strings.Contains(msg, password) {
		t.Fatalf("message %q shows the password", msg)
	}
}

// withUser returns raw with its user information replaced.
func withUser(t *testing.T, raw, user, password string) (full, safe string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Skipf("the test server's URL is not a URL: %v", err)
	}
	u.User = url.UserPassword(user, password)
	full = u.String()
	u.User = url.User(user)
	return full, u.String()
}

func TestUnreachableServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	tg := &Target{URL: "postgres://notesbench:s3cret-pw@" + addr + "/notes?sslmode=disable"}
	want := "postgres://notesbench@" + addr + "/notes?sslmode=disable"
	checkFailure(t, tg.Check(ctx), want+": connecting", "connection refused", "s3cret-pw")
	_, err = tg.Open(ctx, contract.RunSpec{Name: "r"})
	checkFailure(t, err, want+": connecting", "connection refused", "s3cret-pw")
	if d := tg.Describe(); strings.Contains(d, "s3cret-pw") || !strings.Contains(d, want) {
		t.Fatalf("Describe %q", d)
	}
}

func TestWrongPassword(t *testing.T) {
	full, safe := withUser(t, pgtest.URL(t), "postgres", "not-the-password-42")
	tg := &Target{URL: full}
	checkFailure(t, tg.Check(ctx), safe+": connecting", "password authentication failed", "not-the-password-42")
}

func TestMalformedURL(t *testing.T) {
	tg := &Target{URL: "postgres://u:pw-in-a-bad-url@host:notaport/db"}
	err := tg.Check(ctx)
	checkFailure(t, err, "postgres://u@host:notaport/db: parsing the URL", "invalid port", "pw-in-a-bad-url")
}

// A role that may not create schemas is told so by Check, and Open creates
// nothing.
func TestNoPrivilegeToCreateASchema(t *testing.T) {
	a := admin(t)
	role := fmt.Sprintf("notesbench_noprivs_%d", os.Getpid())
	const password = "role-password-77"
	a.Exec(ctx, "DROP ROLE IF EXISTS "+role)
	if _, err := a.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, password)); err != nil {
		t.Skipf("the test server does not let its user create a role: %v", err)
	}
	t.Cleanup(func() { a.Exec(ctx, "DROP ROLE IF EXISTS "+role) })
	full, safe := withUser(t, pgtest.URL(t), role, password)
	tg := &Target{URL: full}
	checkFailure(t, tg.Check(ctx), safe+": checking privileges", "may not create schemas", password)
	var before int
	a.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'notesbench_%'").Scan(&before)
	_, err := tg.Open(ctx, contract.RunSpec{Name: "denied"})
	checkFailure(t, err, safe+": creating schema notesbench_denied_", "permission denied", password)
	var after int
	a.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'notesbench_denied_%'").Scan(&after)
	if after != 0 {
		t.Fatalf("a refused Open left %d schemas", after)
	}
}

// writtenOnce opens a run named name on tg, with one Note written once, and a
// session on it. The test closes both: it checks what their Close says.
func writtenOnce(t *testing.T, tg *Target, name string) (*Store, *Session) {
	t.Helper()
	s, err := tg.OpenStore(ctx, contract.RunSpec{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	c, err := s.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replaceText(c, "1", "k1", "before"); err != nil {
		t.Fatal(err)
	}
	return s, c
}

// When the server ends a session's connection mid-run, the next call fails
// with one line naming the server, and the run's schema is still dropped.
func TestConnectionLostMidRun(t *testing.T) {
	tg, a := newTarget(t), admin(t)
	s, c := writtenOnce(t, tg, "lost")
	pid := c.conn.PgConn().PID()
	if _, err := a.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	_, err := replaceText(c, "2", "k2", "after")
	checkFailure(t, err, safeURL(tg)+": edit_note_tab", "", "\x00")
	c.Close()
	if err := s.Close(); err != nil {
		t.Fatalf("Close after a lost connection: %v", err)
	}
	if schemaExists(t, a, s.Schema()) {
		t.Fatalf("schema %s left after Close", s.Schema())
	}
}

// When the server itself goes away mid-run, calls fail with one line naming
// the server, and Close says it could not drop the schema, naming it.
func TestServerDiesMidRun(t *testing.T) {
	cl := pgtest.NewCluster(t) // -short skips it
	tg := &Target{URL: cl.URL}
	u, err := url.Parse(cl.URL)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	s, c := writtenOnce(t, tg, "dies")
	if err := cl.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = replaceText(c, "2", "k2", "after")
	checkFailure(t, err, safeURL(tg)+": edit_note_tab", "", password)
	if _, err := c.ReadNoteTab(ctx, note, "markdown"); err == nil {
		t.Fatal("a read after the server stopped succeeded")
	}
	c.Close()
	err = s.Close()
	checkFailure(t, err, safeURL(tg)+": dropping schema "+s.Schema(), "", password)
	if _, err := s.Conn(ctx); err == nil {
		t.Fatal("a session opened on a closed run")
	}
}

// safeURL is t's URL without its password, as every message names it.
func safeURL(t *Target) string {
	t.init()
	return t.safe
}
