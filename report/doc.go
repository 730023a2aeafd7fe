// Package report turns results into text: aligned tables, markdown, CSV, JSON and Go
// benchmark lines, written to an io.Writer.
//
// It never runs an experiment, never touches a database and never computes a
// statistic: what it shows was decided in package results.
package report
