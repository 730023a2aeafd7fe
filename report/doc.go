// Package report turns results into text and pictures: aligned tables laid out
// for the terminal's width, markdown, CSV, JSON, Go benchmark lines, HTML pages
// and plots, written to an io.Writer.
//
// It never runs an experiment, never touches a database and never computes a
// statistic: what it shows was decided in package results. Among the
// project's packages it imports results (and contract's types, and two
// helpers under internal/) alone: the records of check, conform and the
// kill -9 test live in results, so that report links no store, no MCP
// client and no PostgreSQL driver (internal/layout's test holds it to that,
// over every package it links).
//
// # Formats
//
// The output formats are declared once, in one table (formats.go): each
// names what it renders of an Output — tables (table, markdown), CSV
// records (csv), the result object (json, never tables), Go benchmark lines
// (gobench), one HTML page (html) — and its renderer. Write writes an
// Output in any of them; a command offers the formats of what its output
// holds (FormatNames), so adding a format is adding its entry and its
// renderer.
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
// VerdictTable: one row per figure with, in this order, the published value,
// the interval in which one new run of ours falls, the outcome, the
// interval's coverage and method, our mean and the published value's
// percentile among ours.
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
// CSV is for machines: tidy data under one header, CSVHeader (table, row,
// figure, seed, ours, published, published_low, published_high, verdict), a
// record per figure of a row, numbers written plainly. A section's Records
// come from the experiment's typed rows, so that ours is a number and not a
// formatted cell; tables without rows behind them become a record per cell.
// Notes, which are for people, are left out.
package report
