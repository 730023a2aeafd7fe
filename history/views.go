package history

import (
	"slices"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// views are what one client of a server saw, from which its calls record
// what a server can tell of what each write meant: a server cannot know what
// a client intends, but it knows what the client last read, and what its
// write did to it.
//
// For every write of a markdown tab's whole text the client's calls record
// the lines it adds to and drops from the client's last view of the tab
// (Call.ReadVersion, Adds, Drops), and the version of the view its content
// came from when that is not the version it sends (Call.BaseVersion): of
// the session's last few views, the one whose text the write keeps the most
// of (all of it when the text begins with the view's, see lacks), the latest
// of those that tie. It says so only when one of the client's calls was told
// the version it sends: a client that learned it elsewhere (in a session,
// or over a connection, of its own) may have built on what it saw there. A
// client that re-reads after a conflict and re-applies its change builds on
// its last view; one that takes the fresh version and resends the text it
// built before builds on an older one.
type views struct {
	mu   sync.Mutex
	seen map[[2]string][]view // per Note and tab, the last maxViews views, oldest first
	// told holds, per Note, the last maxViews versions the client's calls
	// were told (a read's, a write's, a conflict's current one).
	told map[string][]string
}

// maxViews is how many views of a tab a client's views keep, to find the one
// a write's content came from, and how many versions of a Note they keep of
// those it was told.
const maxViews = 8

func newViews() *views {
	return &views{seen: map[[2]string][]view{}, told: map[string][]string{}}
}

// view is a text a client saw: what a read returned, or what a write of its
// own that committed made.
type view struct {
	version string
	text    string
	lines   []string       // the non-blank lines, in order (parts of text)
	counts  map[string]int // how often each is there
}

// newView returns the view of text, its version not yet known.
func newView(text string) *view {
	v := &view{text: text, counts: map[string]int{}}
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		v.lines = append(v.lines, l)
		v.counts[l]++
	}
	return v
}

// begin starts, with start, the record of a write of the whole text of
// Note c.Note's tab tabID: what it does to the client's last view, and which
// view its content came from. The time and the views are taken at once, so
// that the last view is the latest that returned before the call was made.
func (vs *views) begin(start func() Call, tabID, text string, expected contract.Version) Call {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	c := start()
	c.Tab = tabID
	w := newView(text)
	seen := vs.seen[[2]string{c.Note, tabID}]
	if len(seen) == 0 {
		c.Adds = w.lines
		return c
	}
	last := seen[len(seen)-1]
	c.ReadVersion = last.version
	c.Adds, c.Drops = diff(last, *w), diff(*w, last)
	base, least := last, lacks(*w, last)
	for i := len(seen) - 2; i >= 0; i-- {
		if n := lacks(*w, seen[i]); n < least {
			base, least = seen[i], n
		}
	}
	if expected != "" && base.version != string(expected) && slices.Contains(vs.told[c.Note], string(expected)) {
		c.BaseVersion = base.version
	}
	return c
}

// saw keeps what call c, which ended with version and err, told the client:
// the version, and the view seen, when set, of a call that succeeded. The
// caller holds vs.mu.
func (vs *views) saw(c Call, version contract.Version, err error, seen *view) {
	if c.Version != "" {
		told := append(vs.told[c.Note], c.Version)
		vs.told[c.Note] = told[max(0, len(told)-maxViews):]
	}
	if seen != nil && err == nil {
		k := [2]string{c.Note, c.Tab}
		seen.version = string(version)
		views := append(vs.seen[k], *seen)
		if len(views) > maxViews {
			views = views[len(views)-maxViews:]
		}
		vs.seen[k] = views
	}
}

// lacks counts the lines of the view v that the written text w lacks, or
// none when w's text begins with v's whole text: such a write appended to
// v, maybe onto a last line with no newline at its end, which line by line
// it lacks (an older view without that line it keeps whole), and was built
// on v.
func lacks(w, v view) int {
	if strings.HasPrefix(w.text, v.text) {
		return 0
	}
	return len(diff(w, v))
}

// diff returns the lines of b beyond those of a, each as often as it is
// beyond, in b's order.
func diff(a, b view) []string {
	var out []string
	seen := map[string]int{}
	for _, l := range b.lines {
		seen[l]++
		if seen[l] > a.counts[l] {
			out = append(out, l)
		}
	}
	return out
}
