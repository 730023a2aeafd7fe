package sources

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// NormalizeURL returns the form of a cited URL that names the page, so that every
// spelling of one page gives one string:
//
//   - the scheme becomes https; http and https are accepted, and input without a
//     scheme ("example.org/a", "//example.org/a") is read as https;
//   - the host is lower-cased and loses any leading "www." labels; a port is
//     kept, except 443, and 80 when the input was http (the default ports);
//   - user information and the fragment are dropped (input without a scheme must
//     not have user information: "mailto:ann@example.org" is not a page);
//   - query parameters whose name starts with "utm_" (in any case) are dropped;
//     the others are kept as written (but for bytes a URL cannot hold literally,
//     such as spaces, which are percent-encoded), ordered by name, parameters of
//     the same name in their original order; an empty query disappears;
//   - trailing slashes of the path are dropped, so the bare host has no path.
//
// The path keeps its case and its escaping where that is valid. NormalizeURL is idempotent: normalizing its
// result returns it unchanged. It returns an error for input that is not an http or
// https URL with a host, or whose host it cannot write back unambiguously (a zone in
// an IPv6 address, characters that are not allowed in a host name).
func NormalizeURL(raw string) (string, error) {
	u, inputScheme, err := parseCited(raw)
	if err != nil {
		return "", err
	}
	host, err := normalHost(u, inputScheme)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("https://")
	b.WriteString(host)
	b.WriteString(strings.TrimRight(u.EscapedPath(), "/"))
	if q := normalQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), nil
}

// parseCited parses a cited URL, reading one without a scheme as https, and returns
// it with the scheme it was written with ("" when it had none).
func parseCited(raw string) (*url.URL, string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, "", errors.New("empty URL")
	}
	written := ""
	switch {
	case hasScheme(s):
	case strings.HasPrefix(s, "//"):
		s = "https:" + s
	default:
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, "", fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if hasScheme(strings.TrimSpace(raw)) {
		written = u.Scheme
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", fmt.Errorf("%q: scheme %q is not http or https", raw, u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, "", fmt.Errorf("%q has no host", raw)
	}
	if written == "" && u.User != nil {
		// "mailto:ann@example.org" would otherwise read as the host example.org.
		return nil, "", fmt.Errorf("%q has no scheme and reads as user information, not a host", raw)
	}
	return u, written, nil
}

// hasScheme reports whether s starts with a URL scheme followed by "://". A colon
// alone is not enough: "example.org:8080/a" is a host and a port.
func hasScheme(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for j, c := range s[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// normalHost returns the lower-cased host of u without leading "www." labels,
// with its port unless it is a default one, bracketed when it is an IPv6 address.
func normalHost(u *url.URL, inputScheme string) (string, error) {
	host := strings.ToLower(u.Hostname())
	for strings.HasPrefix(host, "www.") && len(host) > len("www.") {
		host = host[len("www."):]
	}
	if host == "" {
		return "", fmt.Errorf("%q has no host", u.String())
	}
	ipv6 := strings.Contains(host, ":")
	for _, c := range host {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c >= 0x80 && c != 0xfffd
		if ipv6 {
			ok = c >= 'a' && c <= 'f' || c >= '0' && c <= '9' || c == ':' || c == '.'
		}
		if !ok {
			return "", fmt.Errorf("host %q: %q is not allowed in a host name", host, c)
		}
	}
	port := u.Port()
	if port == "443" || port == "80" && inputScheme == "http" {
		port = ""
	}
	switch {
	case port != "":
		return net.JoinHostPort(host, port), nil
	case ipv6:
		return "[" + host + "]", nil
	}
	return host, nil
}

// normalQuery drops the utm_ parameters of a raw query and orders the others by
// name, keeping each one as written but for the bytes a URL cannot hold as they
// are (see escapeQueryPart). Names are compared as they stand after that escaping,
// not decoded, so that the order is the same when the result is normalized again.
func normalQuery(rawQuery string) string {
	type param struct{ name, part string }
	var params []param
	for part := range strings.SplitSeq(rawQuery, "&") {
		if part == "" {
			continue
		}
		part = escapeQueryPart(part)
		name, _, _ := strings.Cut(part, "=")
		decoded, err := url.QueryUnescape(name)
		if err != nil {
			decoded = name
		}
		if strings.HasPrefix(strings.ToLower(decoded), "utm_") {
			continue
		}
		params = append(params, param{name, part})
	}
	slices.SortStableFunc(params, func(a, b param) int { return strings.Compare(a.name, b.name) })
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.part
	}
	return strings.Join(parts, "&")
}

// BrowserHref returns the href a browser's address handling gives a typed link, as
// the desktop app's Sources tab compares them: "https://" is prefixed when the link
// has no scheme, then the link is parsed and written back, host lower-cased, default
// port dropped, an empty path written as "/". Unlike NormalizeURL it keeps the
// scheme, "www.", the query, trailing slashes and the fragment.
func BrowserHref(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if !hasScheme(s) {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if u.Host == "" {
		return "", fmt.Errorf("%q has no host", raw)
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" && !(port == "443" && u.Scheme == "https" || port == "80" && u.Scheme == "http") {
		host += ":" + port
	}
	u.Host = host
	if u.Path == "" {
		u.Path = "/"
		u.RawPath = ""
	}
	return u.String(), nil
}

// escapeQueryPart percent-encodes the bytes of one query parameter that a URL
// cannot hold literally (spaces, control characters, non-ASCII, and "<>\"\\^`{|}"),
// leaving everything else, existing escapes included, as written. Encoding what it
// leaves alone would change nothing on a second pass, which keeps NormalizeURL
// idempotent.
func escapeQueryPart(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("<>\"\\^`{|}", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
