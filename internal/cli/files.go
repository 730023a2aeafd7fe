package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/plural"
)

// A File is a file the command line names: the file a flag names (Flag
// "--out"), or one of a command's arguments (Flag empty).
type File struct{ Flag, Path string }

// Arguments returns paths as the files a command's arguments name.
func Arguments(paths []string) []File {
	out := make([]File, len(paths))
	for i, p := range paths {
		out[i] = File{Path: p}
	}
	return out
}

// fileID is what tells two paths of one file apart from two files: the
// absolute path, and the file itself when it exists (a link, or another
// spelling of its path, names the same one).
type fileID struct {
	abs string
	st  os.FileInfo
}

// identify returns the fileID of path.
func identify(path string) (fileID, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fileID{}, err
	}
	st, _ := os.Stat(abs)
	return fileID{abs, st}, nil
}

// same reports whether a and b are one file.
func (a fileID) same(b fileID) bool {
	return a.abs == b.abs || (a.st != nil && b.st != nil && os.SameFile(a.st, b.st))
}

// identified are files, each with its fileID.
type identified []identifiedFile

type identifiedFile struct {
	File
	id fileID
}

// match returns the first of fs that is the file id names.
func (fs identified) match(id fileID) (File, bool) {
	for _, f := range fs {
		if f.id.same(id) {
			return f.File, true
		}
	}
	return File{}, false
}

// DistinctOutputs refuses two flags that name the same file to write: the
// second would overwrite the first. Empty paths name nothing.
func DistinctOutputs(outs ...File) error {
	var prev identified
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		id, err := identify(o.Path)
		if err != nil {
			return UsageErr(o.Flag, err)
		}
		if p, ok := prev.match(id); ok {
			return Usagef(o.Flag, "names the same file as %s (%s): each output needs a file of its own", p.Flag, o.Path)
		}
		prev = append(prev, identifiedFile{o, id})
	}
	return nil
}

// NotInputs refuses an output that is one of the files the command reads,
// however its path is spelt, a link to it included: writing it would
// overwrite what the command read, with exit 0. Call it before anything is
// written. Empty paths, and "-" (standard input), name nothing.
func NotInputs(ins []File, outs ...File) error {
	var read identified
	for _, in := range ins {
		if in.Path == "" || in.Path == "-" {
			continue
		}
		if id, err := identify(in.Path); err == nil { // else reading it says what is wrong
			read = append(read, identifiedFile{in, id})
		}
	}
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		id, err := identify(o.Path)
		if err != nil {
			return UsageErr(o.Flag, err)
		}
		if in, ok := read.match(id); ok {
			what := in.Path
			if in.Flag != "" {
				what = in.Flag + " " + in.Path
			}
			return Usagef(o.Flag, "%s is an input (%s): writing it would overwrite what is read; name another file", o.Path, what)
		}
	}
	return nil
}

// DistinctFiles refuses a file given twice among paths, however its path is
// spelt, a link to it included; what says what reading it twice would do.
// "-" (standard input) is left to the caller.
func DistinctFiles(paths []string, what string) error {
	var prev identified
	for _, f := range paths {
		if f == "-" {
			continue
		}
		id, err := identify(f)
		if err != nil {
			continue // reading it says what is wrong
		}
		if p, ok := prev.match(id); ok {
			return Usagef(f, "the same file as %s: given twice, %s", p.Path, what)
		}
		prev = append(prev, identifiedFile{File{Path: f}, id})
	}
	return nil
}

// MaxTokenBytes bounds a token file: a bearer token is some dozens of bytes.
const MaxTokenBytes = 4 << 10

// ReadToken reads the bearer token the file at path holds, bounded before
// anything is read: a regular file (a device such as /dev/zero never ends,
// and a named pipe without a writer never starts), of at most MaxTokenBytes,
// opened without blocking, holding a token once blanks are trimmed.
func ReadToken(path string) (string, error) {
	regular := func(st os.FileInfo) error {
		switch {
		case st.IsDir():
			return fmt.Errorf("%s is a folder", path)
		case !st.Mode().IsRegular():
			return atomicfile.Regular(path, st)
		case st.Size() > MaxTokenBytes:
			return fmt.Errorf("%s is %s, more than a token file holds (%d KiB)", path, plural.Count(int(st.Size()), "byte"), MaxTokenBytes>>10)
		}
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", pathError(path, err)
	}
	if err := regular(st); err != nil {
		return "", err
	}
	// Non-blocking, so that a file swapped for a named pipe since the stat
	// cannot hang the open; the file is checked again once open.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", pathError(path, err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return "", pathError(path, err)
	}
	if err := regular(st); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxTokenBytes+1))
	switch {
	case err != nil:
		return "", pathError(path, err)
	case len(b) > MaxTokenBytes:
		return "", fmt.Errorf("%s holds more than a token file holds (%d KiB)", path, MaxTokenBytes>>10)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("%s holds no token", path)
	}
	return token, nil
}

// pathError is err about the file at path, said once: "x: no such file or
// directory", not "open x: no such file or directory".
func pathError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// WriteWhole writes a folder of files at out, the folder flag names, with
// write, every file or none (atomicfile.WriteFolder), the file called last
// (the one that links the rest) moved in last. Its error names flag, out
// and the cause at the bottom ("no space left on device"), not the path of
// a staging file the user never named. It is a failure, exit 1: the input
// was good.
func WriteWhole(flag, out, last string, write func(dir string) error) error {
	err := atomicfile.WriteFolder(out, last, write)
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("%s: writing %s: %w", flag, out, err)
}
