package reproduce

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/results"
)

// Only returns the experiments of all that list names, comma-separated, in
// the order named: an empty list, an empty item, a name listed twice or an
// unknown one is an error.
func Only(list string, all []experiment.Descriptor) ([]experiment.Descriptor, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("no experiments named (want some of %s)", strings.Join(experiment.Names(all), ", "))
	}
	names, err := contract.ParseList(list, func(name string) (string, error) {
		if name == "" {
			return "", errors.New("an empty name in the list")
		}
		if _, err := experiment.Lookup(all, name); err != nil {
			return "", fmt.Errorf("unknown experiment %q (want some of %s)", name, strings.Join(experiment.Names(all), ", "))
		}
		return name, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]experiment.Descriptor, len(names))
	for i, name := range names {
		out[i], _ = experiment.Lookup(all, name)
	}
	return out, nil
}

// Machine describes the machine a reproduction runs on, for its record
// (Options.Machine): its system, CPUs and Go, the CPU's model when
// /proc/cpuinfo names it, and the embedded SQLite (its version and driver,
// as the command that picks the store names them).
func Machine(sqlite, driver string) results.Machine {
	m := results.Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version(),
		SQLite: sqlite, SQLiteDriver: driver,
		PublishedSetup: "Python 3.9.6 rebuilds on Apple silicon, real clock"}
	m.CPU = cpuModel("/proc/cpuinfo")
	return m
}

// cpuModel is the first model name the cpuinfo file at path lists, "" when
// it lists none or cannot be read. It reads up to that line only: the file
// lists every CPU, some kilobytes each.
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if k, v, ok := strings.Cut(lines.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
