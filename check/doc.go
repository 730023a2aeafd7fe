// Package check judges histories (package history) from what they hold alone:
// the calls the clients made, what they saw, and the final state read back at
// the end of each run. It is the second opinion on an experiment's counts, and
// the only opinion on a server notesbench cannot look inside.
//
// Run applies five checks to every run of every history:
//
//   - linearizability: each versioned register (a Note's version, or a tab's
//     under guard tab) under compare-and-set writes, checked with porcupine,
//     one partition per register;
//   - versions: every committed write makes a version no other committed write
//     of its register made (timestamp versions cut to milliseconds break this);
//   - lost-updates: every acknowledged line, cell, tab and source is in the
//     final state;
//   - duplicates: no intent created more than one tab, source or line, and a
//     replayed key returned its first result;
//   - stale-overwrites: no write replaced content that changed, by another
//     acknowledged write, after the read the write's content came from.
//
// The package must stay independent of what made the histories: it imports
// neither sim nor any store, only the history format and the contract's types,
// so that its verdicts are an opinion of their own.
package check
