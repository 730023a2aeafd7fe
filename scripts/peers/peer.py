#!/usr/bin/env python3
"""A peer of `notesbench bench` in Python's standard sqlite3 module.

It rebuilds exactly the write transaction notesbench's store runs for an
edit_note_tab replace_text call, with the same schema, the same statements in
the same order and the same PRAGMAs (WAL, synchronous, busy_timeout), times N
sequential writes from the call to its return, and prints the median per write
in microseconds. `make bench-peers` runs it beside notesbench to say what the
Go write path costs against a plain SQLite client.

Usage: peer.py [--writes 2000] [--warmup 200] [--text-size 200]
               [--guard none|note|tab] [--synchronous normal|full] [--db DIR]
"""

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

# Keep in step with store/store.go (schemaSQL, busyTimeoutMS, hotSQL) and store/write.go.
SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
	id        TEXT PRIMARY KEY,
	version   ANY NOT NULL,
	next_tab  INTEGER NOT NULL,
	next_item INTEGER NOT NULL
) WITHOUT ROWID, STRICT;
CREATE TABLE IF NOT EXISTS tabs (
	note_id  TEXT NOT NULL,
	tab_id   TEXT NOT NULL,
	type     TEXT NOT NULL,
	label    TEXT NOT NULL,
	position INTEGER NOT NULL,
	data     TEXT NOT NULL,
	version  ANY NOT NULL,
	PRIMARY KEY (note_id, tab_id)
) WITHOUT ROWID, STRICT;
CREATE TABLE IF NOT EXISTS attachments (
	note_id    TEXT NOT NULL,
	kind       TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	id         TEXT NOT NULL,
	title      TEXT NOT NULL,
	url        TEXT NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (note_id, kind, seq)
) WITHOUT ROWID, STRICT;
CREATE TABLE IF NOT EXISTS idempotency (
	note_id TEXT NOT NULL,
	key     TEXT NOT NULL,
	tool    TEXT NOT NULL,
	result  TEXT NOT NULL,
	PRIMARY KEY (note_id, key)
) WITHOUT ROWID, STRICT;
"""
BUSY_TIMEOUT_MS = 30000

# The statements of one write: store/store.go hotSQL, in the order store/write.go runs them.
LOAD = (
    "SELECT n.version, t.type, t.version, i.tool\n"
    "FROM notes n\n"
    "LEFT JOIN tabs t ON t.note_id = n.id AND t.tab_id = ?\n"
    "LEFT JOIN idempotency i ON i.note_id = n.id AND i.key = ?\n"
    "WHERE n.id = ?"
)
REPLAY = "SELECT result FROM idempotency WHERE note_id = ? AND key = ?"
BUMP_NOTE = "UPDATE notes SET version = ? WHERE id = ?"
BUMP_TAB = "UPDATE tabs SET version = ? WHERE note_id = ? AND tab_id = ?"
SET_DATA = "UPDATE tabs SET data = ? WHERE note_id = ? AND tab_id = ?"
STORE_KEY = "INSERT INTO idempotency (note_id, key, tool, result) VALUES (?, ?, ?, ?)"

NOTE = "note-1"
TOOL = "edit_note_tab"


class Conflict(Exception):
    """A version conflict: the expected version is not the current one."""


def connect(path, synchronous):
    # isolation_level None: no implicit transactions; the write issues BEGIN
    # IMMEDIATE itself, as the Go store does.
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, cached_statements=64)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute(f"PRAGMA synchronous = {synchronous.upper()}")
    db.execute("PRAGMA journal_mode = WAL")
    return db


def create_note(db):
    db.executescript(SCHEMA)
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO notes (id, version, next_tab, next_item) VALUES (?, ?, 1, 1)", (NOTE, 1))
    for pos, (tab, label) in enumerate((("markdown", "Note"), ("files", "Files"), ("sources", "Sources"))):
        db.execute(
            "INSERT INTO tabs (note_id, tab_id, type, label, position, data, version) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (NOTE, tab, tab, label, pos, "", 1),
        )
    db.execute("COMMIT")


def edit_note_tab(db, guard, note_id, tab_id, expected, key, text):
    """One edit_note_tab replace_text call: the store's write transaction."""
    if not note_id or not tab_id or expected is None or not key:
        raise ValueError("note_id, tab_id, expected_version and idempotency_key are required")
    db.execute("BEGIN IMMEDIATE")
    try:
        row = db.execute(LOAD, (tab_id, key, note_id)).fetchone()
        if row is None:
            raise LookupError("note_id")
        note_version, typ, tab_version, first_tool = row
        if first_tool is not None:  # key first: a known key returns the first result
            if first_tool != TOOL:
                raise ValueError("idempotency_key: already used by " + first_tool)
            (stored,) = db.execute(REPLAY, (note_id, key)).fetchone()
            db.execute("ROLLBACK")
            res = json.loads(stored)
            res["replayed"] = True
            return res
        if typ is None:
            raise LookupError("tab_id")
        if typ != "markdown":
            raise ValueError("operation: replace_text does not apply to " + typ)
        tab_scoped = guard == "tab"
        current = tab_version if tab_scoped else note_version
        if guard != "none" and current != expected:
            raise Conflict(current)
        nxt = current + 1
        if tab_scoped:
            db.execute(BUMP_TAB, (nxt, note_id, tab_id))
        else:
            db.execute(BUMP_NOTE, (nxt, note_id))
        db.execute(SET_DATA, (text, note_id, tab_id))
        # As the store marshals an EditResult: a counter version is a JSON number.
        res = {"note_id": note_id, "tab_id": tab_id, "version": nxt, "changed": f"text: {len(text)} characters"}
        db.execute(STORE_KEY, (note_id, key, TOOL, json.dumps(res, separators=(",", ":"))))
        db.execute("COMMIT")
        return res
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--writes", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--text-size", type=int, default=200)
    p.add_argument("--guard", choices=("none", "note", "tab"), default="note")
    p.add_argument("--synchronous", choices=("normal", "full"), default="normal")
    p.add_argument("--db", default="", help="keep the database in this folder (default: a temporary folder, removed)")
    a = p.parse_args()
    if a.writes < 1:
        p.error("--writes: must be at least 1")
    if a.warmup < 0:
        p.error("--warmup: must be 0 or more")
    if a.text_size < 0:
        p.error("--text-size: must be 0 or more")

    folder = a.db or tempfile.mkdtemp(prefix="notesbench-peer-")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"peer-py-{a.guard}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    try:
        db = connect(path, a.synchronous)
        create_note(db)
        version = 1
        samples = []
        clock = time.perf_counter_ns
        for i in range(a.warmup + a.writes):
            # The same key and text as notesbench's writer 1 (sim/bench.go): a
            # label that tells the writes apart, padded with "x" (or cut) to size.
            key = f"bench-1-{i + 1}"
            label = f"writer 1 write {i + 1} "
            text = label[: a.text_size] if len(label) >= a.text_size else label + "x" * (a.text_size - len(label))
            t0 = clock()
            res = edit_note_tab(db, a.guard, NOTE, "markdown", version, key, text)
            t1 = clock()
            version = int(res["version"])
            if i >= a.warmup:
                samples.append((t1 - t0) / 1000)
        db.close()
    finally:
        if not a.db:
            shutil.rmtree(folder, ignore_errors=True)
    median = statistics.median(samples)
    print(f"python sqlite3 {sqlite3.sqlite_version}: guard {a.guard}, synchronous {a.synchronous}, "
          f"{a.writes} writes, median {median:.1f} us/write")
    print(f"median_us {median:.3f}")
    print(f"sqlite_version {sqlite3.sqlite_version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
