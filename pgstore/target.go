package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/notesbench/notesbench/contract"
)

var (
	_ contract.Target  = (*Target)(nil)
	_ contract.Backend = (*Store)(nil)
	_ contract.Session = (*Session)(nil)
	_ contract.Person  = (*Session)(nil)
)

// synchronousCommit is the synchronous_commit setting of s.
func synchronousCommit(s contract.Synchronous) string {
	if s == contract.SyncFull {
		return "on"
	}
	return "off"
}

// defaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout, so that an unreachable server is reported, not waited for.
const defaultConnectTimeout = 10 * time.Second

// Target opens every run in a schema of its own on the PostgreSQL server URL
// names: Open creates the schema and its tables, and the Backend's Close drops
// it, unless Keep is set. Runs on one Target, or on Targets of several
// processes, never see each other's rows.
//
// The zero value is not usable: URL is required. Its fields must not change
// once the Target is used.
type Target struct {
	// URL is a libpq connection string, usually postgres://user:password@host:port/db.
	// Its parameter notesbench_isolation (IsolationParam) names the isolation
	// mode, read_committed (the default) or serializable; notesbench takes it
	// out before connecting.
	URL string
	// Synchronous maps to synchronous_commit; "" is SyncNormal.
	Synchronous contract.Synchronous
	// Keep leaves every run's schema in place for inspection; Kept lists them.
	Keep bool

	once      sync.Once
	cfg       *pgxpool.Config // parsed URL, copied for every run
	dsn       string          // URL without notesbench's own parameter: what the driver and pgbench get
	isolation Isolation       // the mode the URL names
	safe      string          // URL without its password
	secrets   []string        // what must never appear in a message
	initErr   error

	mu      sync.Mutex
	version string   // server_version, once a connection read it
	kept    []string // schemas left by Keep
}

// Parse checks the URL and the settings without connecting.
func (t *Target) Parse() error { return t.init() }

// init parses the URL once.
func (t *Target) init() error {
	t.once.Do(func() {
		t.safe, t.secrets = redactURL(t.URL)
		if t.Synchronous != "" {
			if _, err := contract.SynchronousSettings.Parse(string(t.Synchronous)); err != nil {
				t.initErr = err
				return
			}
		}
		dsn, iso, err := splitIsolation(t.URL)
		if err != nil {
			t.initErr = t.fail("parsing the URL", err)
			return
		}
		t.dsn, t.isolation = dsn, iso
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			// pgx's message names the string with its password masked; ours
			// names it without the password at all.
			t.initErr = t.fail("parsing the URL", errors.New(unquoteParseError(err.Error())))
			return
		}
		if pw := cfg.ConnConfig.Password; pw != "" {
			t.secrets = append(t.secrets, pw)
		}
		if cfg.ConnConfig.ConnectTimeout == 0 {
			cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
		}
		if dialFunc != nil {
			cfg.ConnConfig.DialFunc = dialFunc
		}
		t.cfg = cfg
	})
	return t.initErr
}

// Check connects to the server once and reports what would stop a run: a
// URL that does not parse, a server that cannot be reached, a refused login,
// a role that may not create schemas. It is optional: Open reports the same
// problems, but only once the first run starts.
func (t *Target) Check(ctx context.Context) error {
	if err := t.init(); err != nil {
		return err
	}
	conn, err := t.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var canCreate bool
	var role, db string
	err = conn.QueryRow(ctx, `SELECT has_database_privilege(current_database(), 'CREATE'), current_user, current_database()`).
		Scan(&canCreate, &role, &db)
	if err != nil {
		return t.fail("checking privileges", err)
	}
	if !canCreate {
		return t.fail("checking privileges", fmt.Errorf("role %q may not create schemas in database %q (GRANT CREATE ON DATABASE %s TO %s)", role, db, db, role))
	}
	return nil
}

// connect opens one connection outside any pool and notes the server version.
func (t *Target) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, t.cfg.ConnConfig.Copy())
	if err != nil {
		return nil, t.fail("connecting", err)
	}
	t.mu.Lock()
	t.version = conn.PgConn().ParameterStatus("server_version")
	t.mu.Unlock()
	return conn, nil
}

// Describe names the server, without the password, and the settings.
func (t *Target) Describe() string {
	if err := t.init(); err != nil {
		return "PostgreSQL (" + err.Error() + ")"
	}
	t.mu.Lock()
	v := t.version
	t.mu.Unlock()
	if v != "" {
		v = " " + strings.Fields(v)[0]
	}
	iso := ""
	if t.isolation == Serializable {
		iso = ", writes SERIALIZABLE without row locks, retried"
	}
	return fmt.Sprintf("PostgreSQL%s at %s (%s), a schema per run, synchronous_commit %s%s",
		v, t.safe, driver(), synchronousCommit(t.sync()), iso)
}

// Isolation is the isolation mode the URL names: ReadCommitted unless its
// notesbench_isolation parameter says serializable; "" when the URL does not
// parse.
func (t *Target) Isolation() Isolation {
	if t.init() != nil {
		return ""
	}
	return t.isolation
}

// driver names the client library the store speaks PostgreSQL with, and its
// version as the binary records it (none when it records none).
var driver = sync.OnceValue(func() string {
	const path = "github.com/jackc/pgx/v5"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == path {
				return path + " " + m.Version
			}
		}
	}
	return path
})

func (t *Target) sync() contract.Synchronous {
	if t.Synchronous == "" {
		return contract.SyncNormal
	}
	return t.Synchronous
}

// Kept lists the schemas that runs left in place because Keep is set, in the
// order their runs closed.
func (t *Target) Kept() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.kept...)
}

// Close releases nothing: every run holds its own pool and drops its own
// schema. It exists to satisfy contract.Target.
func (t *Target) Close() error { return nil }

// Open creates the run's schema and its tables in one transaction, so that a
// failure leaves nothing behind, and returns the run's Backend.
func (t *Target) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	return t.OpenStore(ctx, run)
}

// OpenStore is Open returning the concrete Store.
func (t *Target) OpenStore(ctx context.Context, run contract.RunSpec) (*Store, error) {
	if err := t.init(); err != nil {
		return nil, err
	}
	v := run.Variant.WithDefaults()
	if err := v.Validate(); err != nil {
		return nil, err
	}
	schema := schemaName(run.Name)
	versionType := "text"
	if v.VersionFormat == contract.FormatCounter {
		versionType = "bigint"
	}
	conn, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// One simple-protocol message: PostgreSQL runs it as one transaction.
	if _, err := conn.Exec(ctx, "BEGIN;"+createSchemaSQL(schema, versionType)+"COMMIT;"); err != nil {
		return nil, t.fail("creating schema "+schema, err)
	}
	cfg := t.cfg.Copy()
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = synchronousCommit(t.sync())
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "notesbench"
	}
	// Each session holds a connection for its whole life; the server's
	// max_connections is the real bound.
	cfg.MaxConns = 1 << 12
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		err = t.fail("opening a pool", err)
		if _, derr := conn.Exec(context.WithoutCancel(ctx), "DROP SCHEMA "+schema+" CASCADE"); derr != nil {
			err = errors.Join(err, t.fail("dropping schema "+schema, derr))
		}
		return nil, err
	}
	return newStore(t, pool, schema, v, run), nil
}

// schemaName is a fresh schema name for a run: notesbench_, the run's name
// cut to its letters, digits and underscores, and a random suffix, so that
// runs of the same name in parallel processes never meet. At most 63 bytes,
// PostgreSQL's limit on identifiers.
func schemaName(run string) string {
	name := strings.Trim(nonIdent.ReplaceAllString(strings.ToLower(run), "_"), "_")
	if len(name) > 36 {
		name = name[:36]
	}
	b := make([]byte, 6)
	rand.Read(b)
	if name == "" {
		return "notesbench_" + hex.EncodeToString(b)
	}
	return "notesbench_" + name + "_" + hex.EncodeToString(b)
}

var nonIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// Error is a failure of the PostgreSQL server or of the connection to it (not a
// contract outcome): the server by its URL without the password, what was
// being done, and the cause. Its message is one line and never holds the
// password.
type Error struct {
	URL string // without the password
	Op  string
	Err error

	secrets []string
}

func (e *Error) Error() string {
	msg := e.URL + ": " + e.Op + ": " + strings.Join(strings.Fields(e.Err.Error()), " ")
	for _, s := range e.secrets {
		if len(s) >= 3 { // a one- or two-character password would blank out half the message
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func (t *Target) fail(op string, err error) error {
	return &Error{URL: t.safe, Op: op, Err: err, secrets: t.secrets}
}

// Redact returns a connection string without its password, as every message
// of the package names a server.
func Redact(raw string) string {
	safe, _ := redactURL(raw)
	return safe
}

// redactURL returns the URL without its password (in the user information or
// in a password parameter), and the passwords it held. A connection string
// that is not a URL is named by its keys without values.
func redactURL(raw string) (string, []string) {
	if !strings.Contains(raw, "://") {
		var keys []string
		var secrets []string
		for _, f := range strings.Fields(raw) {
			k, v, _ := strings.Cut(f, "=")
			if k == "password" {
				secrets = append(secrets, strings.Trim(v, "'"))
				continue
			}
			keys = append(keys, f)
		}
		return strings.Join(keys, " "), secrets
	}
	u, err := url.Parse(raw)
	if err != nil {
		// Cut the password out of what sits between "://" and the last "@".
		scheme, rest, _ := strings.Cut(raw, "://")
		at := strings.LastIndex(rest, "@")
		if at < 0 {
			return raw, nil
		}
		user, pw, hasPW := strings.Cut(rest[:at], ":")
		if !hasPW {
			return raw, nil
		}
		return scheme + "://" + user + "@" + rest[at+1:], []string{pw}
	}
	var secrets []string
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw)
			u.User = url.User(u.User.Username())
		}
	}
	q := u.Query()
	if pw := q.Get("password"); pw != "" {
		secrets = append(secrets, pw)
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String(), secrets
}

// unquoteParseError drops the connection string pgx quotes in a parse error:
// ours is named beside it already, without its password.
func unquoteParseError(msg string) string {
	if i := strings.Index(msg, "`: "); strings.HasPrefix(msg, "cannot parse `") && i > 0 {
		return msg[i+3:]
	}
	return msg
}
