// Package clientaudit judges an MCP client library as an application uses
// it: which faults on the wire turn a write into two, or into one the
// application is told failed, or into none it is told was made.
//
// A driver, a small program written against one library's public API, is
// run once without a fault and once per fault. Each run serves a Note of its
// own (the contract's reference server, serve, over streamable HTTP on
// loopback) behind a proxy that passes every request on and hits the writes
// the seed names with the run's fault: a reply lost after the write
// committed, a response cut halfway, a 503 before the server sees the
// request, a 502 after it committed, a reply later than the library waits.
//
// The driver protocol (docs/clients.md): the driver reads the server's URL,
// the Note, its markdown tab and how many lines to append from
// NOTESBENCH_SERVER_URL, NOTESBENCH_NOTE_ID, NOTESBENCH_TAB_ID and
// NOTESBENCH_LINES; it appends "line 1" to "line N", each with
// edit_note_tab and one idempotency key of its own, and prints one JSON
// line per call it made with what the application was told:
//
//	{"line": 3, "tool": "edit_note_tab", "idempotency_key": "k3", "told": "error", "error": "…"}
//
// From those lines, the requests the proxy saw and the text the Note holds,
// a run counts the library's own resends (same JSON-RPC id, new id), the
// application's calls with a new key, and the anomalies: a line written
// twice, a line the application was told failed that was written, a line it
// was told was written that is not. Each anomaly keeps the operations that
// show it.
package clientaudit
