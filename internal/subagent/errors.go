package subagent

// SpawnRefusedError is a delegate_tasks call refused before any child
// started because a shared budget dimension is exhausted. It wraps the
// typed *budget.Error, so the failed call is classed execution_budget.
type SpawnRefusedError struct{ Err error }

func (e *SpawnRefusedError) Error() string { return "subagent not spawned: " + e.Err.Error() }
func (e *SpawnRefusedError) Unwrap() error { return e.Err }
