package pgstore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/notesbench/notesbench/contract"
)

// schemaIdent is a schema name OpenSchema takes: an unquoted PostgreSQL
// identifier, lower case, at most 63 bytes.
var schemaIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CheckSchema checks a schema name for OpenSchema.
func CheckSchema(name string) error {
	if !schemaIdent.MatchString(name) {
		return fmt.Errorf("%q is not a schema name notesbench takes (lower-case letters, digits and _, at most 63, not starting with a digit)", name)
	}
	if strings.HasPrefix(name, "pg_") {
		return fmt.Errorf("%q is reserved: PostgreSQL keeps the schemas named pg_ for itself", name)
	}
	return nil
}

// OpenSchema returns the Backend of the schema name, shared by every process
// that opens it: created with its tables when missing, used as it is when
// there, and never dropped (Close leaves it, whatever Keep says). Several
// processes may open it at once, as the replicas of one server do: the
// creation runs under an advisory lock of the schema's, and every write
// takes its Note's row lock, so their writes to one Note run one at a time
// and every key stored by one is seen by the others. A schema whose versions
// are of another type than run.Variant's (counter versions are bigint, the
// timestamp formats text) is refused. Every process must serve the same
// variant: the guard and the order are the process's, not the schema's.
func (t *Target) OpenSchema(ctx context.Context, run contract.RunSpec, name string) (*Store, error) {
	if err := t.init(); err != nil {
		return nil, err
	}
	if err := CheckSchema(name); err != nil {
		return nil, err
	}
	v := run.Variant.WithDefaults()
	if err := v.Validate(); err != nil {
		return nil, err
	}
	versionType := "text"
	if v.VersionFormat == contract.FormatCounter {
		versionType = "bigint"
	}
	conn, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := createShared(ctx, conn, name, versionType); err != nil {
		var se *schemaError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, t.fail("creating schema "+name, err)
	}
	cfg := t.cfg.Copy()
	cfg.ConnConfig.RuntimeParams["search_path"] = name
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = synchronousCommit(t.sync())
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "notesbench"
	}
	cfg.MaxConns = 1 << 12
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, t.fail("opening a pool", err)
	}
	s := newStore(t, pool, name, v, run)
	s.shared = true
	return s, nil
}

// schemaError is a schema that exists and cannot serve the variant asked.
type schemaError struct{ msg string }

func (e *schemaError) Error() string { return e.msg }

// createShared creates the schema and its tables unless they exist, in one
// transaction under an advisory lock of the schema's name, so that processes
// starting at once create it once; then it checks that its versions are of
// type versionType.
func createShared(ctx context.Context, conn *pgx.Conn, name, versionType string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('notesbench schema ' || $1))`, name); err != nil {
		return err
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, name).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := tx.Exec(ctx, createSchemaSQL(name, versionType)); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	var got string
	err = tx.QueryRow(ctx, `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'notes' AND column_name = 'version'`, name).Scan(&got)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return &schemaError{fmt.Sprintf("schema %s exists and holds no Notes table: it is not a notesbench schema", name)}
	case err != nil:
		return err
	case got != versionType:
		return &schemaError{fmt.Sprintf("schema %s holds %s versions (%s), not the %s versions asked for: serve it with the version format it was made with, or name another schema",
			name, versionKind(got), got, versionKind(versionType))}
	}
	if _, err := tx.Exec(ctx, strings.Replace(sqlArgsColumn, "idempotency", name+".idempotency", 1)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// versionKind names the versions a version column of type typ holds.
func versionKind(typ string) string {
	if typ == "bigint" {
		return "counter"
	}
	return "timestamp"
}
