package sandbox

// arm64 has only the *at calls, and no other architecture's numbers the
// probe can reach.
var (
	legacyMetaCalls    = map[string]func(p string, mode uint32) error{}
	legacyChmodOps     []string
	legacyCreateOps    []string
	legacyOtherMetaOps []string
	probeArchOps       = map[string]probeOp{}
)
