package results

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/notesbench/notesbench/internal/atomicfile"
)

// maxFileBytes bounds a JSON result notesbench reads (a baseline, a shard,
// or a file it is asked to overwrite): far above any result of the bounded
// parameters, far below what would strain a laptop's memory.
const maxFileBytes = 256 << 20

// ReadFile reads a JSON result file: a regular file of at most maxFileBytes.
func ReadFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder", path)
	}
	if err := atomicfile.Regular(path, st); err != nil {
		return nil, err
	}
	if st.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s is %d MiB, more than a notesbench result may be (%d MiB)", path, st.Size()>>20, maxFileBytes>>20)
	}
	return os.ReadFile(path)
}

// IsResultFile reports whether path holds a JSON result notesbench wrote:
// one with a notesbench_version.
func IsResultFile(path string) bool {
	b, err := ReadFile(path)
	if err != nil {
		return false
	}
	var head struct {
		Version *string `json:"notesbench_version"`
	}
	return json.Unmarshal(b, &head) == nil && head.Version != nil
}

// CheckWritable is atomicfile.CheckWritable for a JSON result.
func CheckWritable(path string) error {
	return atomicfile.CheckWritable(path, "a notesbench result", IsResultFile)
}
