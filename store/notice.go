package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Telling a session once that its state dir is refused. The refused dir
// takes no write, so the fact that a session was told is kept outside it,
// in a private folder of the user's (env.NoticeDir: under
// $XDG_RUNTIME_DIR, else the temporary directory), one empty file per
// session, held to the state dir's trust checks: a folder another user
// could write is not believed, and the session is told again rather than
// never.

const refusedExt = ".refused"

// RefusedNoticeDue reports whether session has not yet been told, as far
// as dir says, that the state dir is refused.
func RefusedNoticeDue(dir, session string) bool {
	if dir == "" {
		return true
	}
	fi, err := os.Lstat(dir)
	if err != nil || checkDir(dir, fi) != nil {
		return true
	}
	_, err = os.Lstat(filepath.Join(dir, SafeName(session)+refusedExt))
	return err != nil
}

// RefusedNoticeGiven notes in dir that session was told.
func RefusedNoticeGiven(dir, session string) {
	if dir == "" {
		return
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	}
	fi, err := os.Lstat(dir)
	if err != nil || checkDir(dir, fi) != nil {
		return
	}
	if f, err := createNew(filepath.Join(dir, SafeName(session)+refusedExt)); err == nil {
		f.Close()
	}
}
