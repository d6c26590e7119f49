package daemon

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cully/store"
)

// TokenEnv is the environment variable a Claude Code http hook entry reads
// the daemon's secret from (its headers interpolate only the variables
// the entry lists in allowedEnvVars).
const TokenEnv = "CULLY_DAEMON_TOKEN"

// tokenFile holds the per-install secret every request over TCP must
// carry, private to the user (0600) in the state dir.
const tokenFile = "daemon.token"

// tokenBytes is the secret's entropy: 256 bits, base64url without padding
// in the file (43 characters).
const tokenBytes = 32

// TokenPath is the file that holds the daemon's secret.
func TokenPath(h store.Home) string { return filepath.Join(h.Dir, tokenFile) }

// Token returns the install's daemon secret, creating it (crypto/rand) on
// first use. It is made once: two first uses at the same moment agree, as
// the file appears whole under its name or not at all (written aside,
// then linked, which fails if the name exists). A file cully did not
// write, or one others may read, is refused, never replaced: the user
// deletes it to have a new secret.
func Token(h store.Home) (string, error) {
	if err := h.Ensure(); err != nil {
		return "", fmt.Errorf("state dir %s: %w", h.Dir, err)
	}
	p := TokenPath(h)
	tok, err := readToken(p)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("cannot make the daemon's secret: %w", err)
	}
	tok = base64.RawURLEncoding.EncodeToString(raw)
	tmp, err := os.CreateTemp(h.Dir, "."+tokenFile+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("cannot write %s: %w", p, err)
	}
	defer os.Remove(tmp.Name())
	werr := tmp.Chmod(0o600)
	if werr == nil {
		_, werr = tmp.WriteString(tok + "\n")
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("cannot write %s: %w", p, werr)
	}
	if err := os.Link(tmp.Name(), p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readToken(p) // made by another first use meanwhile
		}
		return "", fmt.Errorf("cannot write %s: %w", p, err)
	}
	return tok, nil
}

// readToken reads the secret, refusing a symlink, a FIFO or a device (as
// every reader of the state dir does), a file others may read, and
// anything that is not a secret cully wrote.
func readToken(p string) (string, error) {
	b, err := store.ReadSmallFile(p, 256)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s: mode %04o lets others read the daemon's secret: delete the file, and cully makes a new one", p, fi.Mode().Perm())
	}
	tok := strings.TrimSpace(string(b))
	if raw, err := base64.RawURLEncoding.DecodeString(tok); err != nil || len(raw) != tokenBytes {
		return "", fmt.Errorf("%s is not a secret cully wrote: delete the file, and cully makes a new one", p)
	}
	return tok, nil
}

// tokenSum is what requests are compared against: the secret's SHA-256,
// so that the comparison takes the same time whatever the length and
// content of what a request carries.
func tokenSum(tok string) [sha256.Size]byte { return sha256.Sum256([]byte(tok)) }

// sameToken compares a request's token with the secret in constant time.
func sameToken(got string, want [sha256.Size]byte) bool {
	g := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(g[:], want[:]) == 1
}
