package hookbridge

// maxHostID bounds an id the host gives (a prompt's, a turn's) that cully
// keeps only to join its records to the host's own: real ones are UUIDs.
const maxHostID = 128

// HostID is s when it reads as an id — at most 128 bytes of letters,
// digits and the punctuation ids use — else "": a hostile or garbled
// payload cannot put a long or odd string in every record.
func HostID(s string) string {
	if len(s) > maxHostID {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '.' || c == ':') {
			return ""
		}
	}
	return s
}

// TmuxPane is s when it is a tmux pane id as tmux sets TMUX_PANE ("%"
// and up to 9 digits), else "".
func TmuxPane(s string) string {
	if len(s) < 2 || len(s) > 10 || s[0] != '%' {
		return ""
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return ""
		}
	}
	return s
}

// TraceParent is s when it is a W3C trace context header of version 00
// (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, ids not all
// zero), else "".
func TraceParent(s string) string {
	if len(s) != 55 || s[:3] != "00-" || s[35] != '-' || s[52] != '-' {
		return ""
	}
	zeroTrace, zeroSpan := true, true
	for i := 3; i < 55; i++ {
		if i == 35 || i == 52 {
			continue
		}
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
		if c != '0' {
			if i < 35 {
				zeroTrace = false
			} else if i < 52 {
				zeroSpan = false
			}
		}
	}
	if zeroTrace || zeroSpan {
		return ""
	}
	return s
}
