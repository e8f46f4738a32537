package sandbox

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// devices are the device files every sandboxed command may write, and
// readDevices those it may only read; /dev is protected, so no other
// device is readable.
var (
	devices     = []string{"/dev/null", "/dev/zero", "/dev/full"}
	readDevices = []string{"/dev/random", "/dev/urandom"}
)

// restrictThread puts the calling thread (locked, no_new_privs set) into
// the policy's held ruleset, received as RulesetFD, and, with the network
// off, into a second domain that handles TCP (and UDP where the kernel
// can) with no port allowed. The file rules and the network are separate
// rulesets so that one held ruleset serves a command with the network on
// and one with it off.
func restrictThread(p Policy) error {
	if p.Launch == nil || !p.Launch.Ruleset {
		return ErrNotPrepared
	}
	if err := ll.LandlockRestrictSelf(RulesetFD, p.Launch.RulesetFlags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	if p.Network {
		return nil
	}
	cfg := landlock.V11
	cfg.HandledAccessFS, cfg.Scoped = 0, 0
	fd, flags, err := cfg.BestEffort().NewRulesetFD()
	if err != nil {
		return fmt.Errorf("landlock network ruleset: %w", err)
	}
	if fd < 0 {
		return nil // no TCP rights before ABI 4 (Probe reports it missing)
	}
	defer func() { _ = closeFD(fd) }()
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self (network): %w", err)
	}
	return nil
}
