// Command notesbench rebuilds the osFoundry Notes write contract on SQLite and
// measures, by scripted races between an agent and a person, what each clause of
// that contract prevents.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
