//go:build !linux && !darwin

package daemon

import (
	"errors"
	"net"
)

// peerUID: this system gives no peer credentials that cully reads, so a
// Unix socket could not tell the user's own clients from anyone else's;
// the daemon serves TCP with its secret here instead.
func peerUID(*net.UnixConn) (int, error) {
	return -1, errors.New("no peer credentials on this system")
}

// peerCheck says whether this system can tell who connected to a Unix
// socket.
const peerCheck = false
