package npmtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeNPM puts an npm on the PATH that logs each install to a file and
// makes node_modules/.bin/tool under its --prefix, or fails when the
// packages include "broken"; and a node that prints a version.
func fakeNPM(t *testing.T) (log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(t.TempDir(), "installs")
	npm := `#!/bin/sh
if [ "$1" = --version ]; then echo 11.0.0; exit 0; fi
prefix=""
for a in "$@"; do
	case $a in broken) echo "npm error: no such package" >&2; exit 1;; esac
	[ "$last" = --prefix ] && prefix=$a
	last=$a
done
echo "$@" >> ` + log + `
mkdir -p "$prefix/node_modules/.bin" && echo tool > "$prefix/node_modules/.bin/tool"
`
	node := "#!/bin/sh\necho v20.0.0\n"
	for name, body := range map[string]string{"npm": npm, "node": node} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func installs(t *testing.T, log string) int {
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// An install is made once per set of packages, in any order, kept whole,
// and copied for each test, whose copy is its own.
func TestInstallIsKept(t *testing.T) {
	log := fakeNPM(t)
	cache := t.TempDir()
	t.Setenv(EnvCache, cache)
	first := Install(t, "a@1", "b@2")
	if err := os.WriteFile(filepath.Join(first, "tool"), []byte("changed by a test"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := Install(t, "b@2", "a@1")
	if got := installs(t, log); got != 1 {
		t.Errorf("%d installs of the same packages, want 1", got)
	}
	if first == second {
		t.Errorf("two tests share one copy: %s", first)
	}
	if b, _ := os.ReadFile(filepath.Join(second, "tool")); string(b) != "tool\n" {
		t.Errorf("a test's change reached the kept install: %q", b)
	}
	Install(t, "a@1")
	if got := installs(t, log); got != 2 {
		t.Errorf("%d installs for two sets of packages, want 2", got)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 2 {
		t.Errorf("the cache holds %d entries, want the 2 installs", len(entries))
	}
}

// An install that fails keeps nothing, and the next one tries again.
func TestFailedInstallIsNotKept(t *testing.T) {
	fakeNPM(t)
	cache := t.TempDir()
	t.Setenv(EnvCache, cache)
	if _, err := cached(cache, []string{"broken"}); err == nil || !strings.Contains(err.Error(), "no such package") {
		t.Errorf("a failed install: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("a failed install left %d entries in the cache", len(entries))
	}
}

// NOTESBENCH_NPM_CACHE=off installs afresh every time.
func TestCacheOff(t *testing.T) {
	log := fakeNPM(t)
	t.Setenv(EnvCache, "off")
	Install(t, "a@1")
	Install(t, "a@1")
	if got := installs(t, log); got != 2 {
		t.Errorf("%d installs with the cache off, want 2", got)
	}
}
