// Package report turns results into text: aligned tables, markdown, CSV, JSON and Go
// benchmark lines, written to an io.Writer.
//
// It never runs an experiment, never touches a database and never computes a
// statistic: what it shows was decided in package results.
//
// # Ours beside published
//
// A published figure is never shown without saying so. In an experiment's table
// each published figure gets two adjacent columns: ours under the figure's own
// header ("Lost") and the published value under PublishedHeader ("Lost
// (published)"), formatted by Published — as written in the write-up, or with the
// same number helper as ours. A row or figure the write-ups do not give shows
// NotPublished ("—"). The table's Notes carry SourceNotes (setup, write-up,
// parameters and facts, each line starting "published") and, when verdicts were
// made, SummaryNote. The verdicts themselves are a table of their own,
// VerdictTable: one row per figure with our mean, our central range, the
// published value, its percentile among ours and the outcome.
//
// # Numbers
//
// Counts use Int ("5,400"), fixed-precision figures Fixed ("1.41"), fractions
// Pct ("43.0 %"), a count out of a total Of ("130 of 300 (43 %)"), and figures
// of no fixed precision Num. NaN never reaches a reader as "NaN": it prints as
// "n/a".
//
// # CSV
//
// CSV has no titles, so every record of a table starts with a field named
// "table" holding its title; tables are blocks separated by a blank line, and
// the notes, which are for people, are left out.
package report
