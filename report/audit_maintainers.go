package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// MaintainersMD is the file of a server's findings for its maintainers, in
// a public audit's section.
const MaintainersMD = "REPORT.md"

// MaintainersReport writes a's findings for the maintainers of the server
// it audited (server, at version): for each anomaly found and not allowed,
// what it is, what each mode counted, the operations that show one
// instance, the command that replays that run, and what would fix it; then
// the command that makes the whole audit again (command). It returns nil
// when a found nothing.
func MaintainersReport(a results.Audit, server, version, command string) ([]byte, error) {
	if len(a.Failed) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s %s: what notesbench audit found\n\n", server, version)
	var titles []string
	for _, name := range a.Failed {
		if an, ok := results.AnomalyOf(name); ok {
			titles = append(titles, an.Title)
		}
	}
	fmt.Fprintf(&b, "notesbench audit drove scripted editors, an agent and a person, against %s through %s, and looked for the ways an agent can lose a person's work. It found: %s. Each section below says what was found, the operations that show one instance (from the history the audit judged, which the audit's `--out` keeps under `histories/`), the command that replays that run, and what would fix it. The whole audit, every table and every part: [audit.md](audit.md).\n\n",
		server, describeAccess(a.Subject), strings.Join(titles, "; "))
	for _, name := range a.Failed {
		an, _ := results.AnomalyOf(name)
		row, ok := a.Row(name)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\nWhat it counts: %s.\n\n", capitalize(row.Title), an.About)
		for _, c := range row.Cells {
			if c.Count != nil && *c.Count > 0 {
				line := fmt.Sprintf("- %s: %s", c.Mode, cellText(c))
				if c.Source != "" {
					line += " (" + c.Source + ")"
				}
				if c.Note != "" {
					line += "; " + c.Note
				}
				b.WriteString(line + "\n")
			}
		}
		b.WriteString("\n")
		proven := false
		for _, c := range row.Cells {
			if c.Proof == nil {
				continue
			}
			if err := Render(&b, FormatMarkdown, proofTable(Proven{row.Title, c})); err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "\nTo replay that run:\n\n```sh\n%s\n```\n\n", c.Proof.Replay)
			proven = true
			break
		}
		if !proven {
			b.WriteString("No single run's operations show it (a count of a conformance clause, or of calls the server refused): the audit's tables in [audit.md](audit.md) give each run.\n\n")
		}
		fmt.Fprintf(&b, "What would fix it: %s\n\n", an.Fix)
	}
	fmt.Fprintf(&b, "## The whole audit again\n\n```sh\n%s\n```\n", command)
	return b.Bytes(), nil
}

// describeAccess says how the audit reached the server: its profile and
// its write.
func describeAccess(s results.AuditSubject) string {
	if s.Profile == "" {
		return "the Notes contract's own tools"
	}
	return "notesbench's profile " + s.Profile + " (its write: " + s.WriteStyle + ")"
}

// capitalize returns s with its first letter in upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
