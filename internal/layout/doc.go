// Package layout holds the import rules of notesbench's packages, as a test
// over go list -deps: which package may import, or link, which (see
// docs/development.md's Layout and ARCHITECTURE's "Never" list), with the
// rules the tree still breaks named as exceptions in one place. It has no
// code of its own.
package layout
