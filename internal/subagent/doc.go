// Package subagent is the parent's side of odek's sub-agents: the
// delegate_tasks tool a run offers its model, the runner that starts each
// child `odek subagent` process, the semaphore that bounds them, and the
// rendering and delivery of what they hand back. The protocol both ends
// share (task file, stream lines, result, key handover) is package
// subagent/wire; what the child itself uses is package subagent/childside.
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

// Limits of docs/SUBAGENTS.md and docs/SECURITY.md.
const (
	// maxTasks is the most tasks one delegate_tasks call may carry.
	maxTasks = 8
	// MaxTimeoutSeconds caps a child's timeout.
	MaxTimeoutSeconds = 1800
	// defaultTimeoutSeconds applies when subagent.timeout_seconds is unset.
	defaultTimeoutSeconds = 1800
	// MaxIterations caps a child's loop iterations.
	MaxIterations = 100
	// defaultIterations applies when subagent.max_iterations is unset.
	defaultIterations = 15
	// defaultMaxDepth applies when subagent.max_depth is unset.
	defaultMaxDepth = 2
	// maxDepthCap caps subagent.max_depth.
	maxDepthCap = 8
	// maxConcurrency caps the semaphore.
	maxConcurrency = 8
)
