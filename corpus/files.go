package corpus

import "io/fs"

// SpecialKind words a file mode that is neither a regular file nor a
// folder ("a named pipe", "a socket", "a device"), or is "" for those two.
// Opening a named pipe waits for a writer, forever if none comes, and a
// device such as /dev/zero never ends: no reader opens one.
func SpecialKind(m fs.FileMode) string {
	switch {
	case m.IsRegular() || m.IsDir():
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
