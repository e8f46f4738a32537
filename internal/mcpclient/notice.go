package mcpclient

// Notice is something a server did that the operator may want in the event
// stream: odek answered or declined its request for input, it reported
// progress, a task moved, the server was skipped, restarted or lost. Kinds
// are the Notice* constants.
type Notice struct {
	Kind   string
	Server string
	Tool   string // "" when not tied to a call
	// Method is the server's request (elicitation/create, sampling/createMessage, ...).
	Method string
	// Reason says why a request was declined, or which fields were answered.
	Reason string
	// Progress and Total come from notifications/progress (Total 0 = unknown).
	Progress, Total float64
	// Restart counts the restarts of this run (NoticeServerRestarted,
	// NoticeServerLost); Limit is the server's restart_limit.
	Restart, Limit int
	// Task and TaskStatus name a task and its status (NoticeTask).
	Task, TaskStatus string
}

// Notice kinds.
const (
	NoticeInputDeclined = "input_declined"
	NoticeInputAnswered = "input_answered"
	NoticeProgress      = "progress"
	// NoticeServerSkipped: a server marked required: false failed to
	// start; Reason says why, and the run goes on without it.
	NoticeServerSkipped = "server_skipped"
	// NoticeServerRestarted: a server that exited (or lost its HTTP
	// session) was started again; Reason says why, Restart counts them.
	NoticeServerRestarted = "server_restarted"
	// NoticeServerLost: a server went away and is not started again
	// (restart_limit reached, or the restart failed); Reason says why.
	NoticeServerLost = "server_lost"
	// NoticeTask: a call's task changed status (Task, TaskStatus, Reason
	// = the server's status message).
	NoticeTask = "task"
)

func (c *Client) notice(n Notice) {
	n.Server = c.name
	c.opts.notice(n)
}

// notice hands n to OnNotice, if set.
func (o Options) notice(n Notice) {
	if o.OnNotice != nil {
		o.OnNotice(n)
	}
}
