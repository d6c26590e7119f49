package daemon

import (
	"crypto/sha256"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// gate is what every request must pass before it reaches the hook: a
// hook call comes from the user's own agent host, never from a web page
// (an Origin), never through a name that only resolves to loopback (a
// DNS-rebound Host), and over TCP only with the install's secret. The
// Unix socket's own check, the peer's user, is made per connection
// (peerGate).
type gate struct {
	tcp   bool              // over TCP: Host and secret are checked
	hosts []string          // the Host values a request over TCP may name, lower case
	token [sha256.Size]byte // the secret's SHA-256 (tokenSum)
}

// refusal is why a request was turned away, and the status it is
// answered with.
type refusal struct {
	status int
	why    string
}

// check returns nil for a request the hook may see, or why not.
func (g *gate) check(r *http.Request) *refusal {
	if _, ok := r.Header["Origin"]; ok {
		return &refusal{http.StatusForbidden, "a request with an Origin header comes from a web page, never from an agent's hook"}
	}
	// Fetch metadata: only a browser sends it, whatever the page did to
	// leave its Origin out.
	if _, ok := r.Header["Sec-Fetch-Site"]; ok {
		return &refusal{http.StatusForbidden, "a request with a Sec-Fetch-Site header comes from a browser, never from an agent's hook"}
	}
	if g.tcp {
		if !g.hostOK(r.Host) {
			return &refusal{http.StatusForbidden, fmt.Sprintf("Host %q is not the address this daemon listens on (%s)", clip(r.Host), strings.Join(g.hosts, " or "))}
		}
		if !g.tokenOK(r.Header.Values("Authorization")) {
			return &refusal{http.StatusUnauthorized, "no Authorization: Bearer header with this install's secret (" + TokenEnv + "; cully daemon --token prints it)"}
		}
	}
	if r.Method == http.MethodPost {
		ct := r.Header.Values("Content-Type")
		if len(ct) != 1 {
			return &refusal{http.StatusUnsupportedMediaType, "a hook call's Content-Type is application/json"}
		}
		if mt, _, err := mime.ParseMediaType(ct[0]); err != nil || mt != "application/json" {
			return &refusal{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: a hook call's is application/json", clip(ct[0]))}
		}
	}
	return nil
}

// hostOK: the Host names the address the daemon bound, exactly (port
// included): a browser tricked by a rebound DNS name sends that name.
func (g *gate) hostOK(host string) bool {
	host = strings.ToLower(host)
	for _, h := range g.hosts {
		if host == h {
			return true
		}
	}
	return false
}

// tokenOK: exactly one Authorization header, "Bearer SECRET", the secret
// compared in constant time.
func (g *gate) tokenOK(vals []string) bool {
	if len(vals) != 1 {
		return false
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return sameToken(strings.TrimSpace(tok), g.token)
}

// clip bounds what a refusal repeats of a request.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
