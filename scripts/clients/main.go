// Command clients runs notesbench's client audit on every driver of
// clients/drivers, each library at its pinned version, and writes
// clients/README.md: a table of what each fault did to each library, and a
// section per library with its command. Each audit's JSON is kept in
// clients/results/, and -render writes the README from those alone.
//
//	go run ./scripts/clients            # every driver (make clients)
//	go run ./scripts/clients -only go-sdk,ts-sdk-1
//	go run ./scripts/clients -render
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/clientaudit"
	"github.com/notesbench/notesbench/internal/npmtest"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// A driver is one library's driver: its name (the results file), what it
// drives, and its command, where {nb} is notesbench, {go-sdk} the Go SDK's
// driver built and {js} the folder the JavaScript drivers and their packages
// are installed in.
type driver struct {
	name, library, version, transport, settings, command string
}

var drivers = []driver{
	{"go-sdk", "MCP Go SDK (github.com/modelcontextprotocol/go-sdk)", "", "streamable HTTP", "defaults: no timeout on a call", "{go-sdk}"},
	{"mcp-go", "mark3labs/mcp-go (a module of its own: clients/drivers/mcp-go)", "", "streamable HTTP", "defaults: no timeout on a call", "{mcp-go}"},
	{"go-sdk-stdio", "MCP Go SDK (github.com/modelcontextprotocol/go-sdk), starting the server itself", "", "stdio", "defaults: no timeout on a call; the application connects again (a new process) after the session closed", "{go-sdk} -server {serve}"},
	{"ts-sdk-1", "MCP TypeScript SDK 1.x (@modelcontextprotocol/sdk)", npmtest.TSSDK1, "streamable HTTP", "defaults: a request gives up after 60 s", "node {js}/ts-sdk-1.mjs"},
	{"ts-sdk-1-stdio", "MCP TypeScript SDK 1.x (@modelcontextprotocol/sdk), starting the server itself", npmtest.TSSDK1, "stdio", "defaults: a request gives up after 60 s; the application connects again (a new process) after the transport closed", "node {js}/ts-sdk-1-stdio.mjs {serve}"},
	{"ts-sdk-2", "MCP TypeScript SDK 2.x (@modelcontextprotocol/client)", npmtest.TSClient, "streamable HTTP", "defaults", "node {js}/ts-sdk-2.mjs"},
	{"ts-sdk-2-pinned", "MCP TypeScript SDK 2.x (@modelcontextprotocol/client)", npmtest.TSClient, "streamable HTTP", "versionNegotiation pinned to 2026-07-28", "node {js}/ts-sdk-2.mjs --pin 2026-07-28"},
	{"mcp-remote", "mcp-remote, the stdio-to-HTTP bridge (spawned by the TypeScript SDK 1.x client)", npmtest.MCPRemote, "stdio to the bridge, streamable HTTP to the server", "defaults", "node {js}/mcp-remote.mjs"},
	{"ai-sdk", "Vercel AI SDK's MCP client (@ai-sdk/mcp), through client.tools()", npmtest.AISDKMCP, "streamable HTTP", "defaults (maxRetries 0)", "node {js}/ai-sdk.mjs"},
	{"ai-sdk-retries", "Vercel AI SDK's MCP client (@ai-sdk/mcp), through client.tools()", npmtest.AISDKMCP, "streamable HTTP", "its documented maxRetries set to 2: a tools/call sent again after a status of 500 or more, a connection reset", "node {js}/ai-sdk.mjs --max-retries 2"},
}

func main() {
	only := flag.String("only", "", "run these drivers alone, comma-separated")
	render := flag.Bool("render", false, "write the README from clients/results alone, running nothing")
	flag.Parse()
	if err := run(*only, *render); err != nil {
		fmt.Fprintln(os.Stderr, "clients:", err)
		os.Exit(1)
	}
}

func run(only string, render bool) error {
	if !render {
		tmp, err := os.MkdirTemp("", "notesbench-clients-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := audit(tmp, only); err != nil {
			return err
		}
	}
	return writeReadme()
}

// audit builds notesbench and the Go driver, installs the JavaScript
// drivers' packages, and runs each driver's audit.
func audit(tmp, only string) error {
	nb, gosdk, mcpgo, js := filepath.Join(tmp, "notesbench"), filepath.Join(tmp, "go-sdk-driver"), filepath.Join(tmp, "mcp-go-driver"), filepath.Join(tmp, "js")
	for _, b := range [][3]string{{nb, ".", "./cmd/notesbench"}, {gosdk, ".", "./clients/drivers/go-sdk"}, {mcpgo, "clients/drivers/mcp-go", "."}} {
		if out, err := exec.Command("go", "build", "-C", b[1], "-o", b[0], b[2]).CombinedOutput(); err != nil {
			return fmt.Errorf("building %s: %v\n%s", filepath.Join(b[1], b[2]), err, out)
		}
	}
	var pkgs []string
	for _, d := range drivers {
		if d.version != "" && !slices.Contains(pkgs, d.version) {
			pkgs = append(pkgs, d.version)
		}
	}
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", js}, pkgs...)
	if out, err := exec.Command("npm", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	files, _ := filepath.Glob("clients/drivers/js/*.mjs")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(js, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll("clients/results", 0o755); err != nil {
		return err
	}
	for _, d := range drivers {
		if only != "" && !slices.Contains(strings.Split(only, ","), d.name) {
			continue
		}
		command := strings.NewReplacer("{go-sdk}", gosdk, "{mcp-go}", mcpgo, "{js}", js).Replace(d.command)
		fmt.Fprintf(os.Stderr, "clients: %s: notesbench audit --client '%s'\n", d.name, command)
		cmd := exec.Command(nb, "audit", "--client", command, "--format", "json")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
			return fmt.Errorf("%s: %v", d.name, err)
		}
		var a results.ClientAudit
		if err := json.Unmarshal(out, &a); err != nil {
			return fmt.Errorf("%s: reading its result: %v", d.name, err)
		}
		a.Command = d.command // the command as the README gives it
		b, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join("clients", "results", d.name+".json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeReadme writes clients/README.md from clients/results.
func writeReadme() error {
	var buf bytes.Buffer
	buf.WriteString(readmeHead)
	summary := report.Table{Title: "What the application saw, and what the server holds", Header: []string{"Library", "Version", "Transport", "Protocol"}}
	var sections []string
	var audits []named
	for _, d := range drivers {
		b, err := os.ReadFile(filepath.Join("clients", "results", d.name+".json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var a results.ClientAudit
		if err := json.Unmarshal(b, &a); err != nil {
			return fmt.Errorf("%s: %v", d.name, err)
		}
		audits = append(audits, named{d.name, a})
		sections = append(sections, section(d, a))
	}
	// A column per fault any library ran, in the order the audit makes them.
	faults := []string{clientaudit.NoFault}
	for _, f := range clientaudit.Faults {
		for _, n := range audits {
			if slices.ContainsFunc(n.a.Runs, func(r results.ClientRun) bool { return r.Fault == f.Kind }) {
				faults = append(faults, f.Kind)
				break
			}
		}
	}
	summary.Header = append(summary.Header, faults...)
	for _, n := range audits {
		d := driverNamed(n.name)
		row := []string{n.name, version(d, n.a), d.transport, n.a.Protocol}
		for _, f := range faults {
			row = append(row, cell(n.a, f))
		}
		summary.Rows = append(summary.Rows, row)
	}
	summary.Notes = []string{
		"Each cell: what the application was told for the write the fault hit (in bold when it was told an error of a write the server had committed); whether the library sent it again on its own; what the Note holds after the driver's own resend (with its key). — : the fault is not made over that transport (cut-stream, 503 and 502 are HTTP's; kill, of the process the library started, is stdio's).",
	}
	buf.WriteString(findings(audits))
	if err := report.Render(&buf, report.FormatMarkdown, summary); err != nil {
		return err
	}
	buf.WriteString("\n" + strings.Join(sections, "\n"))
	return os.WriteFile(filepath.Join("clients", "README.md"), buf.Bytes(), 0o644)
}

// driverNamed is the driver of that name.
func driverNamed(name string) driver {
	for _, d := range drivers {
		if d.name == name {
			return d
		}
	}
	return driver{name: name}
}

// named is one library's audit.
type named struct {
	name string
	a    results.ClientAudit
}

// findings says in words what the table shows, counted from the results.
func findings(audits []named) string {
	resent, errCommitted := map[string][]string{}, map[string][]string{}
	ran := map[string]int{}
	var faults []string
	for _, n := range audits {
		for _, r := range n.a.Runs {
			if !slices.Contains(faults, r.Fault) {
				faults = append(faults, r.Fault)
			}
			ran[r.Fault]++
			if r.ResentSameID+r.ResentNewID > 0 {
				resent[r.Fault] = append(resent[r.Fault], n.name)
			}
			if r.FailedCommitted > 0 {
				errCommitted[r.Fault] = append(errCommitted[r.Fault], n.name)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Findings\n\n")
	found := false
	for _, f := range faults {
		if len(resent[f]) > 0 {
			fmt.Fprintf(&b, "- Under %s, the library sent the write again on its own in %s, and the application was told what the second request got.\n", f, strings.Join(resent[f], ", "))
			found = true
		}
	}
	if !found {
		fmt.Fprintf(&b, "- No library sent a write again on its own, under any fault, with the same JSON-RPC id or a new one: a resend is the application's to make.\n")
	} else {
		fmt.Fprintf(&b, "- At its defaults, no library sent a write again on its own.\n")
	}
	for _, f := range faults {
		if len(errCommitted[f]) > 0 {
			fmt.Fprintf(&b, "- Under %s, the application was told an error of a write the server had committed in %d of the %d configurations that ran it (%s): one that makes the write again under a new key, or a server with no keys, writes it twice.\n",
				f, len(errCommitted[f]), ran[f], strings.Join(errCommitted[f], ", "))
		}
	}
	b.WriteString("- Every driver here sends a failed write again with its idempotency key, and the reference server replays it: no line was written twice.\n\n")
	return b.String()
}

func version(d driver, a results.ClientAudit) string {
	if d.version != "" {
		return d.version[strings.LastIndex(d.version, "@")+1:]
	}
	dir, mod := ".", "github.com/modelcontextprotocol/go-sdk"
	if d.name == "mcp-go" {
		dir, mod = "clients/drivers/mcp-go", "github.com/mark3labs/mcp-go"
	}
	out, err := exec.Command("go", "list", "-C", dir, "-m", "-f", "{{.Version}}", mod).Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// cell says what one fault did to one library.
func cell(a results.ClientAudit, fault string) string {
	for _, r := range a.Runs {
		if r.Fault != fault {
			continue
		}
		if r.Error != "" {
			return "not judged: " + r.Error
		}
		var parts []string
		switch {
		case r.Failed == 0:
			parts = append(parts, "told ok")
		case r.FailedCommitted > 0:
			parts = append(parts, fmt.Sprintf("**told error ×%d, %d of a committed write**", r.Failed, r.FailedCommitted))
		default:
			parts = append(parts, fmt.Sprintf("told error ×%d", r.Failed))
		}
		switch resent := r.ResentSameID + r.ResentNewID; {
		case resent == 0:
			parts = append(parts, "no resend")
		case r.ResentNewID == 0:
			parts = append(parts, fmt.Sprintf("resent ×%d, same id", resent))
		default:
			parts = append(parts, fmt.Sprintf("resent ×%d (%d new id)", resent, r.ResentNewID))
		}
		switch {
		case r.Anomalies() == 0:
			parts = append(parts, "every line once")
		default:
			parts = append(parts, fmt.Sprintf("%d twice, %d told failed but written, %d told written but missing", r.AppliedTwice, r.FailedButWritten, r.OKButMissing))
		}
		return strings.Join(parts, "; ")
	}
	return "—"
}

// section is one library's: what it is, its command, and the errors its
// application was told under each fault.
func section(d driver, a results.ClientAudit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s, %s; %s. It said it was `%s` and spoke %s.\n\n", d.name, d.library, d.transport, d.settings, a.Client, a.Protocol)
	fmt.Fprintf(&b, "    notesbench audit --client '%s'\n\n", d.command)
	for _, r := range a.Runs {
		if len(r.Errors) == 0 {
			continue
		}
		fmt.Fprintf(&b, "- %s: the application was told: %s\n", r.Fault, "`"+strings.Join(r.Errors, "`; `")+"`")
	}
	return b.String()
}

const readmeHead = `# The client audit's public table

Which MCP client libraries turn a lost reply into a duplicate write? Each
library below is driven by a small application (clients/drivers) that appends
10 lines to a Note of notesbench's reference server, one idempotency key per
line, sending a failed write again with its key. notesbench runs it once
without a fault and once per fault, with the fault on one write chosen by the
seed, and reads what the application was told, every request the server got,
and the Note's text (docs/clients.md).

Regenerate everything with ` + "`make clients`" + ` (node, npm and the registry; about 15
minutes: a lost or slow reply waits for the library to give up); ` + "`go run\n./scripts/clients -render`" + ` writes this file from clients/results alone.
The JavaScript drivers run against their packages installed with
` + "`npm install --prefix DIR PACKAGE@VERSION`" + ` and clients/drivers/js/*.mjs copied
into DIR; ` + "`{js}`" + ` below is that folder, ` + "`{go-sdk}`" + ` the Go driver built
with ` + "`go build ./clients/drivers/go-sdk`" + `, ` + "`{mcp-go}`" + ` the mcp-go driver built with
` + "`go build`" + ` in clients/drivers/mcp-go (a module of its own).

`
