package daemon

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process at the other end of a Unix socket,
// as the kernel recorded it when that process connected (SO_PEERCRED):
// not something the client says, so it cannot be forged.
func peerUID(c *net.UnixConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var serr error
	if err := rc.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if serr != nil {
		return -1, fmt.Errorf("SO_PEERCRED: %w", serr)
	}
	return int(cred.Uid), nil
}

// peerCheck says whether this system can tell who connected to a Unix
// socket.
const peerCheck = true
