// Package layout holds the import rules of notesbench's packages, as a test
// over go list: which package may import which (see the README's Layout).
// It has no code of its own.
package layout
