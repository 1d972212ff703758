package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// securityHeaders go on every response, those of net/http's own error
// answers included (see securityConn).
var securityHeaders = [][2]string{
	{"Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
	{"X-Content-Type-Options", "nosniff"},
	{"Referrer-Policy", "no-referrer"},
	{"X-Frame-Options", "DENY"},
	// Another site's page may not embed an answer (a <script src> of
	// /api/search) nor keep a handle on a window of ours.
	{"Cross-Origin-Resource-Policy", "same-origin"},
	{"Cross-Origin-Opener-Policy", "same-origin"},
}

// MinTokenBytes is the shortest Ingest.Token New takes: a token is a
// random secret, not a password (openssl rand -hex 32).
const MinTokenBytes = 16

// hostPattern is an Options.AllowedHosts entry: a host name or address,
// with the port it must come with ("" for any).
type hostPattern struct{ host, port string }

func parseHostPatterns(hosts []string) ([]hostPattern, error) {
	out := make([]hostPattern, 0, len(hosts))
	for _, h := range hosts {
		host, port := splitHost(h)
		if host == "" || strings.ContainsAny(h, "/@?#* \t") {
			return nil, fmt.Errorf("server: AllowedHosts entry %q: want a host name or address, with a port or not: %w", h, ErrInvalidOptions)
		}
		out = append(out, hostPattern{host, port})
	}
	return out, nil
}

// splitHost returns the host of a Host header value or a host[:port]
// pattern, lower-cased, without a trailing dot or IPv6 brackets, and its
// port ("" when absent).
func splitHost(hostport string) (host, port string) {
	host = hostport
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return strings.TrimSuffix(strings.ToLower(host), "."), port
}

// sameHost reports whether a and b name one host: equal names, or equal
// addresses however written (::ffff:127.0.0.1 is 127.0.0.1).
func sameHost(a, b string) bool {
	if a == b {
		return true
	}
	x, errx := netip.ParseAddr(a)
	y, erry := netip.ParseAddr(b)
	return errx == nil && erry == nil && x.Unmap() == y.Unmap()
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// hostAllowed reports whether r's Host header names this server: the
// address the connection came in on, localhost or a loopback address
// with that port, or an AllowedHosts entry. A page of another site whose
// name was made to resolve to this machine (DNS rebinding) sends that name
// and is turned away, though the browser would let it read the answers.
func (s *Server) hostAllowed(r *http.Request) bool {
	host, port := splitHost(r.Host)
	if host == "" {
		return false
	}
	for _, p := range s.allowedHosts {
		if p.host == host && (p.port == "" || p.port == port) {
			return true
		}
	}
	if port == "" {
		port = "80"
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok { // called directly, not by net/http's server: no browser sent it
		return true
	}
	lhost, lport := splitHost(local.String())
	return port == lport && (isLoopbackHost(host) || sameHost(host, lhost))
}

// forwardHeaders are those a proxy adds; a request with one came from
// wherever the proxy takes requests, not from this machine.
var forwardHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip"}

// localPeer reports whether r came straight from a program on this machine:
// a loopback peer, through no proxy.
func localPeer(r *http.Request) bool {
	host, _ := splitHost(r.RemoteAddr)
	if !isLoopbackHost(host) {
		return false
	}
	for _, h := range forwardHeaders {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	return true
}

// authorizeWrite checks the credential of a request that changes the
// index: the Ingest's bearer token when it has one, else that the request
// is local (a server without a token takes writes from this machine only).
func (s *Server) authorizeWrite(w http.ResponseWriter, r *http.Request) error {
	token := s.opts.Ingest.Token
	if token == "" {
		if localPeer(r) {
			return nil
		}
		return &httpError{status: http.StatusForbidden,
			msg: "writes from another machine or through a proxy need a token, and the server has none (serve --token-file)"}
	}
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") && tokenEqual(strings.TrimSpace(got), token) {
		return nil
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="bleve-dedup"`)
	return &httpError{status: http.StatusUnauthorized, msg: "missing or wrong token (Authorization: Bearer TOKEN)"}
}

// tokenEqual compares in time independent of where a and b differ, and
// of their lengths (they are hashed first).
func tokenEqual(a, b string) bool {
	x, y := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(x[:], y[:]) == 1
}
