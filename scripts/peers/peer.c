/*
 * peer.c is a peer of `notesbench bench` in C against libsqlite3.
 *
 * It rebuilds exactly the write transaction notesbench's store runs for an
 * edit_note_tab replace_text call, with the same schema, the same statements in
 * the same order and the same PRAGMAs (WAL, synchronous, busy_timeout), each
 * statement prepared once, times N sequential writes from the call to its
 * return, and prints the median per write in microseconds.
 *
 * Build: cc -O2 -o peer scripts/peers/peer.c -lsqlite3
 * Usage: peer [--writes 2000] [--warmup 200] [--text-size 200]
 *             [--guard none|note|tab] [--synchronous normal|full] [--db DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Keep in step with store/store.go (schemaSQL, busyTimeoutMS, hotSQL) and store/write.go. */
static const char *SCHEMA =
    "CREATE TABLE IF NOT EXISTS notes ("
    " id TEXT PRIMARY KEY, version ANY NOT NULL, next_tab INTEGER NOT NULL, next_item INTEGER NOT NULL"
    ") WITHOUT ROWID, STRICT;"
    "CREATE TABLE IF NOT EXISTS tabs ("
    " note_id TEXT NOT NULL, tab_id TEXT NOT NULL, type TEXT NOT NULL, label TEXT NOT NULL,"
    " position INTEGER NOT NULL, data TEXT NOT NULL, version ANY NOT NULL, PRIMARY KEY (note_id, tab_id)"
    ") WITHOUT ROWID, STRICT;"
    "CREATE TABLE IF NOT EXISTS attachments ("
    " note_id TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL,"
    " url TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (note_id, kind, seq)"
    ") WITHOUT ROWID, STRICT;"
    "CREATE TABLE IF NOT EXISTS idempotency ("
    " note_id TEXT NOT NULL, key TEXT NOT NULL, tool TEXT NOT NULL, result TEXT NOT NULL,"
    " PRIMARY KEY (note_id, key)"
    ") WITHOUT ROWID, STRICT;";
enum { BUSY_TIMEOUT_MS = 30000 };

static const char *NOTE = "note-1";
static const char *TOOL = "edit_note_tab";

/* The statements of one write: store/store.go hotSQL, in the order store/write.go runs them. */
enum { BEGIN, LOAD, REPLAY, BUMP_NOTE, BUMP_TAB, SET_DATA, STORE_KEY, COMMIT, ROLLBACK, NSTMT };
static const char *SQL[NSTMT] = {
    "BEGIN IMMEDIATE",
    "SELECT n.version, t.type, t.version, i.tool\n"
    "FROM notes n\n"
    "LEFT JOIN tabs t ON t.note_id = n.id AND t.tab_id = ?\n"
    "LEFT JOIN idempotency i ON i.note_id = n.id AND i.key = ?\n"
    "WHERE n.id = ?",
    "SELECT result FROM idempotency WHERE note_id = ? AND key = ?",
    "UPDATE notes SET version = ? WHERE id = ?",
    "UPDATE tabs SET version = ? WHERE note_id = ? AND tab_id = ?",
    "UPDATE tabs SET data = ? WHERE note_id = ? AND tab_id = ?",
    "INSERT INTO idempotency (note_id, key, tool, result) VALUES (?, ?, ?, ?)",
    "COMMIT",
    "ROLLBACK",
};

static sqlite3 *db;
static sqlite3_stmt *st[NSTMT];

static void die(const char *what) {
    fprintf(stderr, "peer: %s: %s\n", what, db ? sqlite3_errmsg(db) : "no database");
    exit(1);
}

static void run(int i) {
    if (sqlite3_step(st[i]) != SQLITE_DONE) die(SQL[i]);
    sqlite3_reset(st[i]);
}

static void exec_sql(const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "peer: %s: %s\n", sql, msg);
        exit(1);
    }
}

/* edit_note_tab runs one replace_text call; it returns the new version, or -1
 * on a conflict (with nothing written). A known key returns the stored version. */
static long long edit_note_tab(int guard, const char *note_id, const char *tab_id, long long expected,
                               const char *key, const char *text, int text_len) {
    if (!note_id[0] || !tab_id[0] || !key[0]) die("required argument missing");
    run(BEGIN);
    sqlite3_stmt *q = st[LOAD];
    sqlite3_bind_text(q, 1, tab_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, note_id, -1, SQLITE_STATIC);
    if (sqlite3_step(q) != SQLITE_ROW) die("note_id not found");
    long long note_version = sqlite3_column_int64(q, 0);
    int has_tab = sqlite3_column_type(q, 1) != SQLITE_NULL;
    int is_markdown = has_tab && strcmp((const char *)sqlite3_column_text(q, 1), "markdown") == 0;
    long long tab_version = sqlite3_column_int64(q, 2);
    if (sqlite3_column_type(q, 3) != SQLITE_NULL) { /* key first: replay the first result */
        if (strcmp((const char *)sqlite3_column_text(q, 3), TOOL) != 0) die("idempotency_key used by another tool");
        sqlite3_reset(q);
        sqlite3_stmt *r = st[REPLAY];
        sqlite3_bind_text(r, 1, note_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(r, 2, key, -1, SQLITE_STATIC);
        if (sqlite3_step(r) != SQLITE_ROW) die("stored result missing");
        const char *v = strstr((const char *)sqlite3_column_text(r, 0), "\"version\":");
        long long ver = v ? atoll(v + 10) : 0;
        sqlite3_reset(r);
        run(ROLLBACK);
        return ver;
    }
    sqlite3_reset(q);
    if (!has_tab) die("tab_id not found");
    if (!is_markdown) die("replace_text needs a markdown tab");
    long long current = guard == 't' ? tab_version : note_version;
    if (guard != 'x' && current != expected) {
        run(ROLLBACK);
        return -1;
    }
    long long next = current + 1;
    if (guard == 't') {
        sqlite3_bind_int64(st[BUMP_TAB], 1, next);
        sqlite3_bind_text(st[BUMP_TAB], 2, note_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st[BUMP_TAB], 3, tab_id, -1, SQLITE_STATIC);
        run(BUMP_TAB);
    } else {
        sqlite3_bind_int64(st[BUMP_NOTE], 1, next);
        sqlite3_bind_text(st[BUMP_NOTE], 2, note_id, -1, SQLITE_STATIC);
        run(BUMP_NOTE);
    }
    sqlite3_bind_text(st[SET_DATA], 1, text, text_len, SQLITE_STATIC);
    sqlite3_bind_text(st[SET_DATA], 2, note_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st[SET_DATA], 3, tab_id, -1, SQLITE_STATIC);
    run(SET_DATA);
    /* As the store marshals an EditResult: a counter version is a JSON number. */
    char result[256];
    int n = snprintf(result, sizeof result,
                     "{\"note_id\":\"%s\",\"tab_id\":\"%s\",\"version\":%lld,\"changed\":\"text: %d characters\"}",
                     note_id, tab_id, next, text_len);
    sqlite3_bind_text(st[STORE_KEY], 1, note_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st[STORE_KEY], 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st[STORE_KEY], 3, TOOL, -1, SQLITE_STATIC);
    sqlite3_bind_text(st[STORE_KEY], 4, result, n, SQLITE_STATIC);
    run(STORE_KEY);
    run(COMMIT);
    return next;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(void) {
    fprintf(stderr, "usage: peer [--writes N] [--warmup N] [--text-size N] [--guard none|note|tab] "
                    "[--synchronous normal|full] [--db DIR]\n");
    exit(2);
}

int main(int argc, char **argv) {
    int writes = 2000, warmup = 200, text_size = 200;
    const char *guard = "note", *sync = "normal", *dir = "";
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *f = argv[i], *v = argv[++i];
        if (!strcmp(f, "--writes")) writes = atoi(v);
        else if (!strcmp(f, "--warmup")) warmup = atoi(v);
        else if (!strcmp(f, "--text-size")) text_size = atoi(v);
        else if (!strcmp(f, "--guard")) guard = v;
        else if (!strcmp(f, "--synchronous")) sync = v;
        else if (!strcmp(f, "--db")) dir = v;
        else usage();
    }
    if (writes < 1 || warmup < 0 || text_size < 0) usage();
    int g = !strcmp(guard, "none") ? 'x' : !strcmp(guard, "tab") ? 't' : !strcmp(guard, "note") ? 'n' : 0;
    if (!g || (strcmp(sync, "normal") && strcmp(sync, "full"))) usage();

    char folder[4096], path[4200];
    int temp = dir[0] == 0;
    if (temp) {
        const char *tmp = getenv("TMPDIR");
        snprintf(folder, sizeof folder, "%s/notesbench-peer-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        if (!mkdtemp(folder)) die("mkdtemp");
    } else {
        snprintf(folder, sizeof folder, "%s", dir);
    }
    snprintf(path, sizeof path, "%s/peer-c-%s.db", folder, guard);
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char p[4300];
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }

    if (sqlite3_open(path, &db) != SQLITE_OK) die("open");
    char pragma[128];
    snprintf(pragma, sizeof pragma, "PRAGMA busy_timeout = %d", BUSY_TIMEOUT_MS);
    exec_sql(pragma);
    snprintf(pragma, sizeof pragma, "PRAGMA synchronous = %s", !strcmp(sync, "full") ? "FULL" : "NORMAL");
    exec_sql(pragma);
    exec_sql("PRAGMA journal_mode = WAL");
    exec_sql(SCHEMA);
    exec_sql("BEGIN IMMEDIATE;"
             "INSERT INTO notes (id, version, next_tab, next_item) VALUES ('note-1', 1, 1, 1);"
             "INSERT INTO tabs VALUES ('note-1', 'markdown', 'markdown', 'Note', 0, '', 1);"
             "INSERT INTO tabs VALUES ('note-1', 'files', 'files', 'Files', 1, '', 1);"
             "INSERT INTO tabs VALUES ('note-1', 'sources', 'sources', 'Sources', 2, '', 1);"
             "COMMIT;");
    for (int i = 0; i < NSTMT; i++)
        if (sqlite3_prepare_v3(db, SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &st[i], NULL) != SQLITE_OK) die(SQL[i]);

    char *text = malloc(text_size + 1);
    double *samples = malloc(sizeof(double) * writes);
    long long version = 1;
    char key[64], label[64];
    for (int i = 0; i < warmup + writes; i++) {
        /* The same key and text as notesbench's writer 1 (sim/bench.go): a label
         * that tells the writes apart, padded with 'x' (or cut) to text_size. */
        snprintf(key, sizeof key, "bench-1-%d", i + 1);
        int n = snprintf(label, sizeof label, "writer 1 write %d ", i + 1);
        if (n > text_size) n = text_size;
        memcpy(text, label, n);
        memset(text + n, 'x', text_size - n);
        text[text_size] = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long long v = edit_note_tab(g, NOTE, "markdown", version, key, text, text_size);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (v < 0) die("unexpected version conflict");
        version = v;
        if (i >= warmup) samples[i - warmup] = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    }
    for (int i = 0; i < NSTMT; i++) sqlite3_finalize(st[i]);
    sqlite3_close(db);
    if (temp) {
        for (int i = 0; i < 3; i++) {
            char p[4300];
            snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
            unlink(p);
        }
        rmdir(folder);
    }

    qsort(samples, writes, sizeof(double), cmp_double);
    double median = writes % 2 ? samples[writes / 2] : (samples[writes / 2 - 1] + samples[writes / 2]) / 2;
    printf("c libsqlite3 %s: guard %s, synchronous %s, %d writes, median %.1f us/write\n", sqlite3_libversion(),
           guard, sync, writes, median);
    printf("median_us %.3f\n", median);
    printf("sqlite_version %s\n", sqlite3_libversion());
    return 0;
}
