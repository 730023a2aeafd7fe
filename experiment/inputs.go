package experiment

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// MergeKind says what the files given to notesbench merge hold.
type MergeKind int

const (
	// MergeShards are the shards of one experiment's run
	// (results.ReadShards, then Merge).
	MergeShards MergeKind = iota
	// MergeReproduction are the shards of a reproduction
	// (results.ReadReproduceShards).
	MergeReproduction
	// MergeHistories are histories, written as one (history.Merge).
	MergeHistories
)

// MergeInputs are the files a merge puts together, read: Data holds the
// bytes of each of Files, Kind says what they are.
type MergeInputs struct {
	Files []string
	Data  [][]byte
	Kind  MergeKind
}

// MergeFiles returns the files a merge of args reads: each file as given,
// and for each folder the .json and .jsonl files in it, by name, leaving
// out hidden files (a shard still being written is one), folders and the
// files outputs name (a merge run again over the folder it wrote into). A
// folder that cannot be listed, or holds no such file, is a
// *results.MergeError naming it; a file is read later, and reading it
// says what is wrong with it.
func MergeFiles(args []string, outputs ...string) ([]string, error) {
	var files []string
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil || !st.IsDir() {
			files = append(files, arg)
			continue
		}
		in, err := folderFiles(arg, outputs)
		if err != nil {
			return nil, &results.MergeError{File: arg, Err: err}
		}
		if len(in) == 0 {
			return nil, results.MergeErrorf(arg, "a folder with no .json or .jsonl file to merge")
		}
		files = append(files, in...)
	}
	return files, nil
}

// folderFiles lists the files of dir a merge reads (see MergeFiles).
func folderFiles(dir string, outputs []string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.Type().IsRegular() || (!strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".jsonl")) {
			continue
		}
		if path := filepath.Join(dir, name); !isOutput(path, outputs) {
			files = append(files, path)
		}
	}
	return files, nil
}

// isOutput reports whether path is one of the files outputs name ("" names
// none).
func isOutput(path string, outputs []string) bool {
	fst, err := os.Stat(path)
	if err != nil {
		return false
	}
	for _, out := range outputs {
		if out == "" {
			continue
		}
		if ost, err := os.Stat(out); err == nil && os.SameFile(ost, fst) {
			return true
		}
	}
	return false
}

// ReadMergeInputs reads files (results.ReadFile) and tells what they hold:
// histories, when every one is one, or else results, the shards of a
// reproduction when the first is one of those. A file that does not read,
// and histories given with results, are a *results.MergeError; whether
// the results are shards of one run is for reading them to say.
func ReadMergeInputs(files []string) (*MergeInputs, error) {
	in := &MergeInputs{Files: files}
	histories := 0
	for _, f := range files {
		b, err := results.ReadFile(f)
		var pe *os.PathError
		switch {
		case errors.As(err, &pe):
			return nil, &results.MergeError{File: f, Err: pe.Err}
		case err != nil:
			return nil, &results.MergeError{Err: err}
		}
		if history.IsHistoryFile(f) {
			histories++
		}
		in.Data = append(in.Data, b)
	}
	switch {
	case histories > 0 && histories == len(files):
		in.Kind = MergeHistories
	case histories > 0:
		return nil, &results.MergeError{Err: errors.New("merge takes shards' results or histories, not both")}
	case len(in.Data) > 0:
		var head struct {
			Experiment string `json:"experiment"`
		}
		json.Unmarshal(in.Data[0], &head) // a result that does not read is for reading it to say
		if head.Experiment == "reproduce" {
			in.Kind = MergeReproduction
		}
	}
	return in, nil
}
