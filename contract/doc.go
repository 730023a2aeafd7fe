// Package contract is the seam between the experiments and whatever serves the
// osFoundry Notes write contract: the types of the seven tools' arguments and
// results, the typed errors of the contract's outcomes (a version conflict, an
// unknown Note or tab, an invalid argument, a schema violation), the embedded
// tools/list with its JSON Schema validator, the JSON layer Call that an MCP
// server exposes, and the interfaces an implementation provides: Target (a fresh
// Backend per run), Backend (the Notes of one run) and Session (one client).
//
// It also holds the contract's rules that do not depend on storage (what a
// request may hold, which checks a write makes and in what order, what an
// edit or a person's action does to a tab, how tab IDs and versions are
// made), so that every implementation applies the same ones.
//
// contract knows no implementation: no SQLite, no PostgreSQL, no MCP transport,
// no editors and no experiments. Implementations import it; it imports none of
// them.
package contract
