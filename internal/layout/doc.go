// Package layout holds the rules of notesbench's packages, as tests: the
// import rules over go list -deps (which package may import, or link, which;
// see docs/development.md's Layout and ARCHITECTURE's "Never" list), with the
// rules the tree still breaks named as exceptions in one place; and the
// names rule over every package's exported type names (one name, one
// meaning), with its short allow-list, each entry saying why it stays; and
// the bound on every function's cyclomatic complexity (MaxComplexity). It
// has no code of its own.
package layout
