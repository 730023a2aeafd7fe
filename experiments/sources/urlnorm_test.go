package sources

import (
	"strings"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	const canon = "https://climatelab.example.org/reports/x1y2"
	tests := []struct {
		in, want string
	}{
		// The seven spellings of the sources experiment.
		{"https://climatelab.example.org/reports/x1y2", canon},
		{"https://climatelab.example.org/reports/x1y2/", canon},
		{"https://www.climatelab.example.org/reports/x1y2", canon},
		{"https://climatelab.example.org/reports/x1y2?utm_source=chat", canon},
		{"https://climatelab.example.org/reports/x1y2#overview", canon},
		{"http://climatelab.example.org/reports/x1y2", canon},
		{"climatelab.example.org/reports/x1y2", canon},
		// Combinations and the finer points.
		{"  HTTP://WWW.ClimateLab.Example.ORG/reports/x1y2/?utm_medium=x&utm_source=y#top ", canon},
		{"//climatelab.example.org/reports/x1y2", canon},
		{"www.www.climatelab.example.org/reports/x1y2", canon},
		{"https://example.org", "https://example.org"},
		{"https://example.org/", "https://example.org"},
		{"https://example.org///", "https://example.org"},
		{"https://example.org/A/Path", "https://example.org/A/Path"},
		{"https://example.org/a?", "https://example.org/a"},
		{"https://example.org/a/?b=2&a=1&UTM_Campaign=z&a=0", "https://example.org/a?a=1&a=0&b=2"},
		{"https://example.org/a?utm_source=x&q=go%20lang", "https://example.org/a?q=go%20lang"},
		{"https://example.org/a?utm=1&utmost=2", "https://example.org/a?utm=1&utmost=2"},
		{"https://example.org/a%20b/", "https://example.org/a%20b"},
		{"https://ann:secret@example.org/a", "https://example.org/a"},
		{"https://example.org:443/a", "https://example.org/a"},
		{"http://example.org:80/a", "https://example.org/a"},
		{"https://example.org:80/a", "https://example.org:80/a"},
		{"http://example.org:8080/a", "https://example.org:8080/a"},
		{"example.org:8080/a", "https://example.org:8080/a"},
		{"https://[2001:DB8::1]/a", "https://[2001:db8::1]/a"},
		{"https://[2001:db8::1]:8443/a", "https://[2001:db8::1]:8443/a"},
		{"https://www/a", "https://www/a"},
		{"00? #", "https://00?%20"},
		{"https://example.org/?b=1&utm%5Fsource=x&%7A=1&a=2", "https://example.org?%7A=1&a=2&b=1"},
		{"https://example.org/a?q=caf\u00e9 au lait&x=%zz", "https://example.org/a?q=caf%C3%A9%20au%20lait&x=%zz"},
	}
	for _, tt := range tests {
		got, err := NormalizeURL(tt.in)
		if err != nil {
			t.Errorf("NormalizeURL(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again, err := NormalizeURL(got); err != nil || again != got {
			t.Errorf("NormalizeURL(%q) = %q, %v; want it unchanged", got, again, err)
		}
	}
}

func TestNormalizeURLErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"   ",
		"ftp://example.org/a",
		"mailto:ann@example.org",
		"https://",
		"https:///a",
		"https://exa mple.org/a",
		"https://example.org:http/a",
		"https://[fe80::1%25en0]/a",
		"https://ex!ample.org/a",
	} {
		if got, err := NormalizeURL(in); err == nil {
			t.Errorf("NormalizeURL(%q) = %q, want an error", in, got)
		}
	}
}

func TestBrowserHref(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://Example.org/a", "https://example.org/a"},
		{"example.org/a", "https://example.org/a"},
		{"https://example.org", "https://example.org/"},
		{"https://example.org:443/a", "https://example.org/a"},
		{"http://example.org:80/a", "http://example.org/a"},
		{"https://example.org:80/a", "https://example.org:80/a"},
		{"https://example.org/a/", "https://example.org/a/"},
		{"https://www.example.org/a", "https://www.example.org/a"},
		{"https://example.org/a?utm_source=chat", "https://example.org/a?utm_source=chat"},
		{"https://example.org/a#overview", "https://example.org/a#overview"},
		{"http://example.org/a", "http://example.org/a"},
	}
	for _, tt := range tests {
		if got, err := BrowserHref(tt.in); err != nil || got != tt.want {
			t.Errorf("BrowserHref(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	same := func(a, b string) bool {
		ha, errA := BrowserHref(a)
		hb, errB := BrowserHref(b)
		return errA == nil && errB == nil && ha == hb
	}
	if !same("example.org/a", "https://EXAMPLE.org/a") {
		t.Error("a scheme-less link and its https form should compare equal")
	}
	if same("https://example.org/a", "https://example.org/a/") {
		t.Error("a trailing slash should make the hrefs differ")
	}
	if same("https://", "https://") {
		t.Error("two links without a host should not compare equal")
	}
}

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"https://climatelab.example.org/reports/x1y2",
		"climatelab.example.org/reports/x1y2/",
		"http://WWW.example.org:80/a/?utm_source=x&b=1&a=2#f",
		"//example.org",
		"https://[2001:db8::1]:8443/a%2Fb/",
		"https://example.org/a;b?c=d;e&&f",
		"example.org:8080",
		"https://ann@example.org/",
		"https://xn--bcher-kva.example/%E2%82%AC/",
		"https://Bücher.example/",
		"00? #",
		"0?\xc90%0X00000&0000",
		"https://example.org/?utm%5Fsource=x&%7A=1&a=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := NormalizeURL(raw)
		if err != nil {
			return
		}
		if !strings.HasPrefix(out, "https://") {
			t.Errorf("NormalizeURL(%q) = %q, not https", raw, out)
		}
		if strings.Contains(out, "#") {
			t.Errorf("NormalizeURL(%q) = %q keeps a fragment", raw, out)
		}
		again, err := NormalizeURL(out)
		if err != nil {
			t.Fatalf("NormalizeURL(%q) = %q, which does not normalize: %v", raw, out, err)
		}
		if again != out {
			t.Errorf("not idempotent: %q -> %q -> %q", raw, out, again)
		}
	})
}
