package sandbox

// decodeLegacy: arm64 has only the *at calls.
func decodeLegacy(int, [6]uint64, func(metaOp, bool) metaCall) (metaCall, bool) {
	return metaCall{}, false
}
