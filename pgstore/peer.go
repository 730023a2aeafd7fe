package pgstore

import (
	"net/url"
	"strings"

	"github.com/notesbench/notesbench/contract"
)

// What a peer outside Go (internal/pgbench, which runs pgbench) needs to make
// this package's write and reach a run's schema. The runner itself is no part
// of a store.

// Statement is one SQL statement of a write, as this package sends it, and
// what fills each of its placeholders, in order: $n is Params[n-1], one of
// "note", "tab", "k" (the idempotency key), "ver" (the new version), "text",
// "tool" and "result" (the stored result).
type Statement struct {
	SQL    string
	Params []string
}

// WriteStatements are the statements of one edit_note_tab replace_text write
// on a tab under guard, in t's isolation mode, in the two pipelined batches
// runWrite sends them in (the checks between the batches left out: a peer's
// pipeline cannot look at a result). A peer that runs them alone on its Note
// fails none.
func (t *Target) WriteStatements(guard contract.Guard) [2][]Statement {
	begin, note := t.isolation.statements()
	bump, bumpParams := sqlBumpNote, []string{"ver", "note"}
	if guard == contract.GuardTab {
		bump, bumpParams = sqlBumpTab, []string{"ver", "note", "tab"}
	}
	return [2][]Statement{{
		{begin, nil},
		{note, []string{"note"}},
		{sqlLoadTab, []string{"note", "tab", "k"}},
	}, {
		{bump, bumpParams},
		{sqlSetData, []string{"text", "note", "tab"}},
		{sqlStoreKey, []string{"note", "k", "tool", "result"}},
		{"COMMIT", nil},
	}}
}

// LibpqConn is the connection string and environment a libpq program (a
// peer) gets to reach t's run of schema: the URL without its password (which
// goes in PGPASSWORD, off the command line), with the run's schema and
// synchronous_commit as options.
func (t *Target) LibpqConn(schema string) (string, []string) {
	opts := "-c search_path=" + schema + " -c synchronous_commit=" + synchronousCommit(t.sync())
	env := []string{}
	if pw := t.cfg.ConnConfig.Password; pw != "" {
		env = append(env, "PGPASSWORD="+pw)
	}
	u, err := url.Parse(t.dsn)
	if err != nil || !strings.Contains(t.dsn, "://") {
		return t.safe, append(env, "PGOPTIONS="+opts)
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	q.Del("password")
	q.Set("options", strings.TrimSpace(q.Get("options")+" "+opts))
	// libpq decodes %20, not +, as a space; a + of the values is %2B here.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String(), env
}

// Fail is err, from op on t's database, as this package reports its own: an
// *Error naming the URL without its password, every secret of it redacted.
func (t *Target) Fail(op string, err error) error { return t.fail(op, err) }
