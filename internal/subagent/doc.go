// Package subagent is odek's sub-agent machinery: the delegate_tasks tool a
// parent run offers its model, the protocol-2 task file and result stream it
// exchanges with each child `odek subagent` process, the runner that starts
// children, and the result artifacts children hand back.
//
// Invariants:
//   - A child never gets more than its parent: trust is the minimum of the
//     parent's and the task's, the depth grows by one and is refused at the
//     limit, every budget is the minimum of the operator's limit and the
//     child's reserved share of what the parent has left (parallel children
//     split it), and its tools and policy are the intersection of its own
//     and the parent's. An exhausted dimension is a hard cap of zero: the
//     parent refuses to spawn. Every charge-back is checked at once.
//   - The API key reaches a child only through file descriptor 3 (an
//     unlinked temporary file), never through its environment or argv; the
//     child environment is the parent's minus every secret.
//   - Everything a child sends back is untrusted: its stdout is read line by
//     line under hard caps (a flood kills the child's process group), its
//     result is bounded field by field and shown to the model only inside an
//     untrusted-content wrapper, and its artifact refs are validated fail
//     closed against the task's own artifact directory.
//   - Every process a child starts lives in the child's process group, which
//     is killed when the child ends, so nothing outlives a task.
//   - Events name a goal only by its 8-byte hash.
//
// The package knows the agent loop only by shape: Tool satisfies the loop's
// Tool interface without importing it. Children are started through the
// small Runner interface (LocalRunner today), so other backends can be added
// without touching delegate_tasks.
package subagent

// Protocol is the task-file protocol this package writes. Protocol 2 adds the
// typed --stream lines; protocol 1 (or none) gets one JSON result object.
const Protocol = 2

// Limits of docs/SUBAGENTS.md and docs/SECURITY.md.
const (
	// MaxTasks is the most tasks one delegate_tasks call may carry.
	MaxTasks = 8
	// MaxTimeoutSeconds caps a child's timeout.
	MaxTimeoutSeconds = 1800
	// DefaultTimeoutSeconds applies when subagent.timeout_seconds is unset.
	DefaultTimeoutSeconds = 1800
	// MaxIterations caps a child's loop iterations.
	MaxIterations = 100
	// DefaultIterations applies when subagent.max_iterations is unset.
	DefaultIterations = 15
	// DefaultMaxDepth applies when subagent.max_depth is unset.
	DefaultMaxDepth = 2
	// MaxDepthCap caps subagent.max_depth.
	MaxDepthCap = 8
	// MaxConcurrency caps the semaphore.
	MaxConcurrency = 8
	// MaxSummaryRunes caps a child's summary; longer ones end with "…".
	MaxSummaryRunes = 2048
)

// Caps on the child's stdout (docs/SUBAGENTS.md): a line longer than MaxLineBytes,
// more than MaxLines lines or more than MaxStreamBytes in total is a flood.
const (
	MaxLineBytes   = 10 << 20
	MaxLines       = 100000
	MaxStreamBytes = 100 << 20
)

// Environment variables of the parent-child contract.
const (
	// EnvDepth carries the child's delegation depth (the parent's + 1).
	EnvDepth = "ODEK_SUBAGENT_DEPTH"
	// EnvAPIKeyFD names the file descriptor the API key can be read from.
	EnvAPIKeyFD = "ODEK_API_KEY_FD"
	// KeyFD is the only descriptor EnvAPIKeyFD may name.
	KeyFD = 3
)
