package sources

import (
	"net/url"
	"testing"
)

// TestPageSpellings checks the seven spellings the sources experiment cites: one
// page under NormalizeURL, seven under the raw key, six under a browser's href.
func TestPageSpellings(t *testing.T) {
	p := citedPage{host: "datahub.example.net", path: "/papers/1a2b3c"}
	normal, written, hrefs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for k := range numSpellings {
		s := p.spell(k)
		written[s] = true
		n, err := NormalizeURL(s)
		if err != nil {
			t.Fatalf("spelling %d %q: %v", k, s, err)
		}
		normal[n] = true
		h, err := BrowserHref(sendableURL(s))
		if err != nil {
			t.Fatalf("spelling %d %q: %v", k, s, err)
		}
		hrefs[h] = true
		// The store takes absolute http and https URLs with a host only.
		if u, err := url.Parse(sendableURL(s)); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			t.Errorf("spelling %d: the client sends %q, which the store would refuse", k, sendableURL(s))
		}
	}
	if len(normal) != 1 || !normal["https://datahub.example.net/papers/1a2b3c"] {
		t.Errorf("normalized spellings = %v, want only the canonical URL", normal)
	}
	if len(written) != numSpellings {
		t.Errorf("%d distinct written spellings, want %d", len(written), numSpellings)
	}
	if len(hrefs) != numSpellings-1 {
		t.Errorf("%d distinct browser hrefs, want %d (no scheme reads as the canonical https URL)", len(hrefs), numSpellings-1)
	}
}
