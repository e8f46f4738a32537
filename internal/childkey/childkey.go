package childkey

import "syscall"

// The parent-child contract of the handover (docs/SUBAGENTS.md); the
// parent's side is in internal/subagent/wire, whose constants a test holds
// equal to these.
const (
	// EnvFD names the descriptor the parent hands the key over on.
	EnvFD = "ODEK_API_KEY_FD"
	// FD is the only descriptor EnvFD may name.
	FD = 3
	// Hello is the child's message to the parent on FD, sent with the
	// descriptor the key is to be written into.
	Hello = "odek-key/1"
	// MaxKeyBytes bounds the key.
	MaxKeyBytes = 64 << 10
	// Timeout bounds the child's wait for the key once it has asked.
	Timeout = 10 // seconds
)

// What init found. It is written only by init, before main runs, and only
// read after.
var (
	hardenErr error
	handed    bool
	key       string
	keyErr    error
)

func init() {
	hardenErr = harden()
	v, ok := syscall.Getenv(EnvFD)
	if !ok {
		return
	}
	_ = syscall.Unsetenv(EnvFD)
	handed = true
	switch {
	case v != "3":
		keyErr = fail(EnvFD+"="+quote(v)+": only descriptor 3 is supported", nil)
	case hardenErr != nil:
		// A dumpable process would show the key to every process of its
		// user: refuse it. The descriptor is still closed (nobody reads it).
		keyErr = fail("the process is dumpable", hardenErr)
		if isHandoverSocket(FD) == nil {
			_ = syscall.Close(FD)
		}
	default:
		key, keyErr = receive(FD, syscall.Timeval{Sec: Timeout})
	}
}

// Hardened is nil when init made the process non-dumpable (or the system
// has no such setting), else the reason it could not.
func Hardened() error { return hardenErr }

// Key is the API key the parent handed over. wasHanded says whether the
// process was started with ODEK_API_KEY_FD (a sub-agent); err is set when it
// was and the handover failed.
func Key() (k string, wasHanded bool, err error) { return key, handed, keyErr }

// quote is v in double quotes, cut to 16 bytes and with bytes other than
// printable ASCII shown as '?' (fmt is not imported: see the package doc).
func quote(v string) string {
	b := []byte{'"'}
	for i := 0; i < len(v) && i < 16; i++ {
		c := v[i]
		if c < ' ' || c > '~' || c == '"' {
			c = '?'
		}
		b = append(b, c)
	}
	if len(v) > 16 {
		b = append(b, "…"...)
	}
	return string(append(b, '"'))
}

// trimNewlines drops the line ends a key may carry.
func trimNewlines(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// itoa is n in decimal (strconv is not imported: see the package doc).
func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// seconds is tv as "10s" or, below a second, "250ms".
func seconds(tv syscall.Timeval) string {
	if tv.Sec > 0 {
		return itoa(int(tv.Sec)) + "s"
	}
	return itoa(int(tv.Usec/1000)) + "ms"
}
