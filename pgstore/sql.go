package pgstore

import "strings"

// schemaSQL creates the tables of one run in its own schema. VERSION is the
// type of the version columns: bigint for counter versions, text for the
// timestamp formats. The key columns compare bytewise (COLLATE "C"): they are
// identifiers, never sorted for a person.
const schemaSQL = `
CREATE TABLE SCHEMA.notes (
	id        text COLLATE "C" PRIMARY KEY,
	version   VERSION NOT NULL,
	next_tab  bigint NOT NULL,
	next_item bigint NOT NULL
);
CREATE TABLE SCHEMA.tabs (
	note_id  text COLLATE "C" NOT NULL,
	tab_id   text COLLATE "C" NOT NULL,
	type     text NOT NULL,
	label    text NOT NULL,
	position integer NOT NULL,
	data     text NOT NULL,
	version  VERSION NOT NULL,
	PRIMARY KEY (note_id, tab_id)
);
CREATE TABLE SCHEMA.attachments (
	note_id    text COLLATE "C" NOT NULL,
	kind       text COLLATE "C" NOT NULL,
	seq        bigint NOT NULL,
	id         text NOT NULL,
	title      text NOT NULL,
	url        text NOT NULL,
	created_at text NOT NULL,
	PRIMARY KEY (note_id, kind, seq)
);
CREATE TABLE SCHEMA.idempotency (
	note_id text COLLATE "C" NOT NULL,
	key     text COLLATE "C" NOT NULL,
	tool    text NOT NULL,
	result  text NOT NULL,
	args    text NOT NULL DEFAULT '',
	PRIMARY KEY (note_id, key)
);
`

// createSchemaSQL returns the statements that create schema with version
// columns of type versionType.
func createSchemaSQL(schema, versionType string) string {
	return "CREATE SCHEMA " + schema + ";" +
		strings.NewReplacer("SCHEMA", schema, "VERSION", versionType).Replace(schemaSQL)
}

// The statements of the write path. Every write sends two batches (one round
// trip each when nothing else is needed):
//
//	BEGIN; sqlLockNote; sqlLoadTab or sqlLoadNote     -- then the checks, in Go
//	the changes; sqlStoreKey; COMMIT                   -- or ROLLBACK
//
// sqlLockNote takes the Note's row lock, so the writes to one Note run one at
// a time, as SQLite's write lock makes them. The load runs as a statement of
// its own after the lock is granted: under READ COMMITTED each statement sees
// what was committed when it starts, so it sees everything the previous holder
// of the lock committed. (A single statement that both waited for the lock and
// read the other tables would read them as of before the wait.)
//
// In the Serializable isolation mode the first batch is sqlBeginSerializable,
// sqlReadNote and the same load: no lock, one snapshot for the whole
// transaction, and the server refuses the write (SQLSTATE 40001) when
// another changed what it read before it commits.
const (
	// sqlBegin names the isolation level, so that a server whose default is
	// another still gives clean conflicts.
	sqlBegin = `BEGIN ISOLATION LEVEL READ COMMITTED`
	// sqlLockNote: note_id.
	sqlLockNote = `SELECT version, next_tab, next_item FROM notes WHERE id = $1 FOR UPDATE`
	// sqlBeginSerializable begins a write in the Serializable mode, whatever
	// the server's default.
	sqlBeginSerializable = `BEGIN ISOLATION LEVEL SERIALIZABLE`
	// sqlReadNote is sqlLockNote without the lock. Arguments: note_id.
	sqlReadNote = `SELECT version, next_tab, next_item FROM notes WHERE id = $1`
	// sqlLoadTab reads what a write to a tab checks, after the lock: the tab's
	// type and version (NULLs when there is no such tab), the tool and stored
	// result of the key (NULLs when the key is new), the server's clock and,
	// last, the digest of the key's first arguments. Arguments: note_id,
	// tab_id, key.
	sqlLoadTab = `SELECT t.type, t.version, i.tool, i.result, clock_timestamp(), i.args
FROM (VALUES (1)) AS one (x)
LEFT JOIN tabs t ON t.note_id = $1 AND t.tab_id = $2
LEFT JOIN idempotency i ON i.note_id = $1 AND i.key = $3`
	// sqlLoadTabData is sqlLoadTab with the tab's stored content, for the
	// operations that change part of it.
	sqlLoadTabData = `SELECT t.type, t.version, i.tool, i.result, clock_timestamp(), t.data, i.args
FROM (VALUES (1)) AS one (x)
LEFT JOIN tabs t ON t.note_id = $1 AND t.tab_id = $2
LEFT JOIN idempotency i ON i.note_id = $1 AND i.key = $3`
	// sqlLoadNote is sqlLoadTab for a Note-level write: the number of tabs
	// (the position of a new one) instead of a tab. Arguments: note_id, key.
	sqlLoadNote = `SELECT (SELECT count(*) FROM tabs WHERE note_id = $1), i.tool, i.result, clock_timestamp(), i.args
FROM (VALUES (1)) AS one (x)
LEFT JOIN idempotency i ON i.note_id = $1 AND i.key = $2`

	sqlBumpNote = `UPDATE notes SET version = $1 WHERE id = $2`
	sqlBumpTab  = `UPDATE tabs SET version = $1 WHERE note_id = $2 AND tab_id = $3`
	sqlSetData  = `UPDATE tabs SET data = $1 WHERE note_id = $2 AND tab_id = $3`
	sqlStoreKey = `INSERT INTO idempotency (note_id, key, tool, result) VALUES ($1, $2, $3, $4)`
	// sqlStoreKeyArgs stores the digest of the arguments too, for a variant
	// that refuses a key reused with other ones (contract.KeyRefuse).
	sqlStoreKeyArgs = `INSERT INTO idempotency (note_id, key, tool, result, args) VALUES ($1, $2, $3, $4, $5)`
	// sqlArgsColumn adds the args column to a schema made before the store
	// kept it.
	sqlArgsColumn = `ALTER TABLE idempotency ADD COLUMN IF NOT EXISTS args text NOT NULL DEFAULT ''`

	sqlNextTab   = `UPDATE notes SET next_tab = next_tab + 1 WHERE id = $1`
	sqlInsertTab = `INSERT INTO tabs (note_id, tab_id, type, label, position, data, version) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	sqlNextItem  = `UPDATE notes SET next_item = next_item + 1 WHERE id = $1`
	sqlInsertAtt = `INSERT INTO attachments (note_id, kind, seq, id, title, url, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	sqlSetPos    = `UPDATE tabs SET position = $1 WHERE note_id = $2 AND tab_id = $3`
	sqlSetLabel  = `UPDATE tabs SET label = $1 WHERE note_id = $2 AND tab_id = $3`
	sqlTabExists = `SELECT EXISTS (SELECT 1 FROM tabs WHERE note_id = $1 AND tab_id = $2)`

	sqlInsertNote = `INSERT INTO notes (id, version, next_tab, next_item) VALUES ($1, $2, 1, 1)`
	sqlClock      = `SELECT clock_timestamp()`
)

// The statements of the reads. Each read is one statement, so it sees one
// committed state without a transaction of its own.
const (
	// sqlListTabs: the Note's version and its tabs in bar order; no row when
	// there is no such Note.
	sqlListTabs = `SELECT n.version, t.tab_id, t.type, t.label, t.position
FROM notes n LEFT JOIN tabs t ON t.note_id = n.id
WHERE n.id = $1 ORDER BY t.position`
	// sqlReadTab: the Note's and the tab's versions, the tab, and the items of a
	// files or sources tab (one row per item, NULLs for the others).
	sqlReadTab = `SELECT n.version, t.version, t.type, t.label, t.data, a.id, a.title, a.url, a.created_at
FROM notes n JOIN tabs t ON t.note_id = n.id AND t.tab_id = $2
LEFT JOIN attachments a ON a.note_id = n.id AND a.kind = t.type
WHERE n.id = $1 ORDER BY a.seq`
	sqlNoteExists = `SELECT EXISTS (SELECT 1 FROM notes WHERE id = $1)`
	// sqlAttachments: one page of items after sequence number $3, at most $4;
	// no row when there is no such Note, one row of NULLs when the page is
	// empty.
	sqlAttachments = `SELECT a.seq, a.id, a.title, a.url, a.created_at
FROM notes n LEFT JOIN LATERAL (
	SELECT seq, id, title, url, created_at FROM attachments
	WHERE note_id = n.id AND kind = $2 AND seq > $3 ORDER BY seq LIMIT $4
) a ON true
WHERE n.id = $1 ORDER BY a.seq`
	sqlListTabsOnly = `SELECT tab_id, type, label, position FROM tabs WHERE note_id = $1 ORDER BY position`
)
