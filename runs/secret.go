package runs

import (
	"os"
	"path"
	"strings"

	"cully/redact"
)

// Why a file present in the work tree is not in a snapshot (Skip.Why). A
// rollback never overwrites or removes such a file: no snapshot could put
// it back.
const (
	whyTooBig     = "over the snapshot size cap"
	whyUnreadable = "unreadable"
	whySpecial    = "not a file or a link"
	whySecret     = "not kept: secret file"
	whyLink       = "inside a folder that is now a link"
)

// maxSecretScan bounds the untracked files whose content is read for
// secrets: a .env, a key or a credentials file is small; a large file is
// data.
const maxSecretScan = 64 << 10

// secretNames are file names that hold secrets whatever their content.
var secretNames = map[string]bool{
	".npmrc": true, ".pypirc": true, ".netrc": true, "_netrc": true, ".git-credentials": true,
	"credentials": true, "kubeconfig": true, ".htpasswd": true, ".pgpass": true, ".dockercfg": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true,
}

// secretExts are file extensions of keys and keystores.
var secretExts = map[string]bool{
	".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true,
	".kubeconfig": true, ".ppk": true, ".asc": true, ".gpg": true,
}

// secretByName reports a path whose name says it holds a secret: .env
// files (but their .example, .sample and .template), keys, package
// registry and cloud credentials, kubeconfig.
func secretByName(p string) bool {
	base := strings.ToLower(path.Base(p))
	if base == ".env" || strings.HasPrefix(base, ".env.") {
		for _, tmpl := range []string{".example", ".sample", ".template", ".dist", ".defaults"} {
			if strings.HasSuffix(base, tmpl) {
				return false
			}
		}
		return true
	}
	if secretNames[base] || strings.HasPrefix(base, "credentials.") || strings.HasPrefix(base, "id_rsa") || strings.HasPrefix(base, "id_ed25519") {
		return true
	}
	if strings.HasSuffix(strings.ToLower(p), ".kube/config") || strings.HasSuffix(strings.ToLower(p), ".docker/config.json") {
		return true
	}
	return secretExts[path.Ext(base)]
}

// secretByContent reports a small file in which the hook's redaction
// rules find a secret (a token, a key, a password assignment).
func secretByContent(full string, size int64) bool {
	if size > maxSecretScan || size == 0 {
		return false
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return false
	}
	s := string(b)
	if strings.Contains(s, "-----BEGIN ") && strings.Contains(s, "PRIVATE KEY") {
		return true
	}
	return redact.Text(s) != s
}

// RedactPaths is paths as the hook shows its targets: a token in a file's
// name never reaches the journal, a snapshot file or the terminal.
func RedactPaths(ps []string) []string {
	if ps == nil {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = redact.Path(p)
	}
	return out
}
