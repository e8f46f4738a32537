package errclass

// Wrap gives err the class c, for an error whose package names no class of
// its own (cobra, the file system, a parser): its text and its chain stay
// err's, and events.ErrorClass and the exit code read c from it, as they
// read any outer class first. A nil err stays nil.
func Wrap(c string, err error) error {
	if err == nil {
		return nil
	}
	return &classedError{class: c, err: err}
}

// classedError is an error with the class Wrap gave it.
type classedError struct {
	class string
	err   error
}

func (e *classedError) Error() string      { return e.err.Error() }
func (e *classedError) Unwrap() error      { return e.err }
func (e *classedError) ErrorClass() string { return e.class }
