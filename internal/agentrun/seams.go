package agentrun

import (
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/odek-run/odek/internal/subagent/childside"
)

// Seams are what the test binary of cmd/odek changes (from its
// environment, before the command runs) so that a script waits for a
// state rather than racing a short timer, or runs as on a system with
// less; nothing else sets them.
var Seams = struct {
	// WaitNotice is how long a sub-agent queues on the process's
	// semaphore before it is reported.
	WaitNotice time.Duration
	// SoftDeadline computes a sub-agent's soft and hard deadlines (ms
	// after its start) from its timeout.
	SoftDeadline func(timeoutSeconds int) (softMS, hardMS int64)
	// MCPInterruptGrace is each step of stopping the MCP servers after an
	// interrupt (0 = mcpclient's 250 ms).
	MCPInterruptGrace time.Duration
	// ProbeSandbox asks the kernel what it offers.
	ProbeSandbox func() sandbox.Support
	// PasswdHome is the user database's home directory for this user.
	PasswdHome func() string
	// EventBuffer is the emitter's buffer (0 = events.DefaultBuffer).
	EventBuffer int
	// WrapEventSink wraps every event sink (a slow one, in tests).
	WrapEventSink func(events.Sink) events.Sink
}{
	WaitNotice:    subagent.DefaultWaitNotice,
	SoftDeadline:  childside.SoftDeadline,
	ProbeSandbox:  sandbox.Probe,
	PasswdHome:    passwdHome,
	WrapEventSink: func(s events.Sink) events.Sink { return s },
}
