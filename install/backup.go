package install

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// BackupsKept is how many backups of one settings file are kept: enough to
// step back over the last few installs and uninstalls, and no more, since
// each holds this machine's paths (and whatever else the file holds).
const BackupsKept = 3

// Backups keeps a copy of each settings file before cully changes it, in
// the state dir (Dir is its backups folder): never beside the file, where
// a project's backup would sit in the work tree, ready to be committed with
// this machine's paths. Each settings file has its own folder, named after
// the file and a hash of its absolute path; inside, one file per backup,
// named by its UTC time, so name order is time order.
type Backups struct{ Dir string }

// legacySuffix marks the backups earlier versions of cully wrote beside a
// settings file. They are still read (their bytes can still come back on
// uninstall), never written.
const legacySuffix = ".cully-backup-"

// Folder is where the backups of the settings file at path go.
func (bk Backups) Folder(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return filepath.Join(bk.Dir, filepath.Base(abs)+"-"+Sum([]byte(abs))[:12])
}

// Name is the file a backup taken at stamp gets.
func (bk Backups) Name(path, stamp string) string {
	return filepath.Join(bk.Folder(path), stamp+"-"+filepath.Base(path))
}

// Save writes a backup of b, the content of the file at path, private to
// the user, then prunes the folder to the newest BackupsKept.
func (bk Backups) Save(path string, b []byte, stamp string) (string, error) {
	if bk.Dir == "" {
		return "", fmt.Errorf("back up %s: no state directory", path)
	}
	if err := os.MkdirAll(bk.Folder(path), 0o700); err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	name := bk.Name(path, stamp)
	if err := WriteAtomic(name, b, 0o600); err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	bk.prune(path)
	return name, nil
}

// saved lists the backups of path in the state dir, oldest first.
func (bk Backups) saved(path string) []string {
	if bk.Dir == "" {
		return nil
	}
	ents, err := os.ReadDir(bk.Folder(path))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), "-"+filepath.Base(path)) {
			out = append(out, filepath.Join(bk.Folder(path), e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// Legacy lists the backups an earlier cully left beside the file at path.
func Legacy(path string) []string {
	m, _ := filepath.Glob(path + legacySuffix + "*")
	return m // lexical order is time order: the suffix is a UTC timestamp
}

func (bk Backups) prune(path string) {
	s := bk.saved(path)
	for _, old := range s[:max(0, len(s)-BackupsKept)] {
		_ = os.Remove(old)
	}
}

// Matching returns the newest backup holding the same settings as want:
// the user's own bytes, for a file cully is handing back unchanged.
func (bk Backups) Matching(path string, want []byte) []byte {
	all := append(Legacy(path), bk.saved(path)...) // the state dir's are the newer
	for i := len(all) - 1; i >= 0; i-- {
		if b, err := os.ReadFile(all[i]); err == nil && sameSettings(b, want) {
			return b
		}
	}
	return nil
}

// Restore hands back the user's own bytes when an uninstall leaves the
// settings as a backup holds them: the file as it was before an install
// (one by an earlier cully, which reformatted the whole file, say). Only a
// plan that removes something is touched: a file with nothing of cully's
// in it stays exactly as it is.
func (bk Backups) Restore(p *Plan) {
	if !p.Changed || p.After == nil || p.Remove {
		return
	}
	if orig := bk.Matching(p.Path, p.After); orig != nil {
		p.After = orig
		p.Changed = !bytes.Equal(p.Before, orig)
	}
}
